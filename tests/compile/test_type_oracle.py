"""The planner's TypeOracle: a value computed from the kernel's arguments by a few
straight-line statements is typed by an inference over those statements alone (the
warm-cache compile's facts stage spent most of its time inferring the whole kernel for
one offset), and that type is the one the whole kernel's inference gives; what is not
straight-line (a loop-carried value, a value from a coop call) goes to the whole-kernel
inference. Without a GPU: kernels compiled for sm_90."""

import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir import _types
from cuda.coop.numba_mlir._explain import _capability

ROW = types.Array(types.float32, 1, "C")


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


@pytest.fixture
def answers(monkeypatch):
    """Every type the oracle was asked for: (variable, typed alone or None, typed with the whole kernel)."""
    asked = []
    type_of = _types.TypeOracle.type_of

    def both_ways(oracle, var):
        alone = oracle._type_alone(var)
        whole = oracle._infer(_types._typable(oracle._state, oracle._arrays)).get(var.name)
        asked.append((var.name, alone, whole))
        return type_of(oracle, var)

    monkeypatch.setattr(_types.TypeOracle, "type_of", both_ways)
    return asked


def test_an_offset_is_typed_alone_as_the_whole_kernel_types_it(answers):
    @cuda.jit
    def tiles(source, destination, stride):
        block = coop.this_block(128)
        items = coop.ThreadData(2)
        start = cuda.blockIdx.x * 256 + stride * 2
        coop.load(block, source, items, offset=start)
        coop.store(block, destination, items, offset=start)

    tiles.compile((ROW, ROW, types.int32))
    typed_alone = [(alone, whole) for name, alone, whole in answers if alone is not None]
    assert typed_alone and all(alone == whole for alone, whole in typed_alone)


def test_a_loop_carried_value_is_typed_with_the_whole_kernel(answers):
    @cuda.jit
    def tiles(source, destination, count):
        block = coop.this_block(128)
        items = coop.ThreadData(2)
        start = 0
        for _ in range(count):
            start += 256
        coop.load(block, source, items, offset=start)
        coop.store(block, destination, items)

    tiles.compile((ROW, ROW, types.int32))
    offsets = [(alone, whole) for name, alone, whole in answers if "start" in name]
    assert offsets and all(alone is None and whole is not None for alone, whole in offsets)
