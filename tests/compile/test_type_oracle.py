"""The planner's TypeOracle: a value computed from the kernel's arguments by a few
straight-line statements is typed by an inference over those statements alone (the
warm-cache compile's facts stage spent most of its time inferring the whole kernel for
one offset), and that type is the one the whole kernel's inference gives; what is not
straight-line (a loop-carried value, a value from a coop call) goes to the whole-kernel
inference. The type inferred alone is remembered, in the process and in the disk cache's
note for the next process. Without a GPU: kernels compiled for sm_90."""

import json
import os
import subprocess
import sys

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


@cuda.jit
def offset_tiles(source, destination, stride):
    """A kernel whose offset is straight-line: typed alone (here and in FRESH_PROCESS)."""
    block = coop.this_block(128)
    items = coop.ThreadData(2)
    start = cuda.blockIdx.x * 256 + stride * 2
    coop.load(block, source, items, offset=start)
    coop.store(block, destination, items, offset=start)


def test_an_offset_is_typed_alone_as_the_whole_kernel_types_it(answers):
    offset_tiles.compile((ROW, ROW, types.int32))
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


# A fresh process compiling offset_tiles (this module's, imported by path); it says how many
# inferences ran.
FRESH_PROCESS = """
import importlib.util
import json
from numba_cuda_mlir import types
from cuda.coop.numba_mlir import _types
from cuda.coop.numba_mlir._explain import _capability

_capability()
inferred = []
infer = _types.TypeOracle._infer


def counted(oracle, func_ir):
    inferred.append(1)
    return infer(oracle, func_ir)


_types.TypeOracle._infer = counted
spec = importlib.util.spec_from_file_location("type_oracle_kernels", {module!r})
kernels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernels)
row = types.Array(types.float32, 1, "C")
kernels.offset_tiles.compile((row, row, types.{stride}))
print(json.dumps({{"inferred": len(inferred)}}))
"""


def compile_in_a_fresh_process(tmp_path, stride="int32") -> int:
    script = tmp_path / f"tiles_{stride}.py"
    script.write_text(FRESH_PROCESS.format(stride=stride, module=__file__))
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = subprocess.run(
        [sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["inferred"]


def typing_notes(tmp_path) -> list:
    return sorted((tmp_path / "xdg").rglob("typed-alone-*.note"))


def test_a_type_inferred_alone_is_remembered_for_the_next_process(tmp_path):
    assert compile_in_a_fresh_process(tmp_path) >= 1
    assert len(typing_notes(tmp_path)) == 1
    assert compile_in_a_fresh_process(tmp_path) == 0  # read from the disk cache's note
    # another argument type is another shape: inferred, and noted apart
    assert compile_in_a_fresh_process(tmp_path, stride="uint64") >= 1
    assert len(typing_notes(tmp_path)) == 2


def test_a_remembered_type_is_the_one_inference_gives(answers):
    @cuda.jit
    def tiles(source, destination, stride):
        block = coop.this_block(128)
        items = coop.ThreadData(2)
        start = cuda.blockIdx.x * 512 - stride
        coop.load(block, source, items, offset=start)
        coop.store(block, destination, items, offset=start)

    for _ in range(2):  # the second compile's answer is the first's, remembered
        tiles.compile((ROW, ROW, types.uint16))
    typed_alone = [(alone, whole) for name, alone, whole in answers if alone is not None]
    assert len(typed_alone) >= 2 and all(alone == whole for alone, whole in typed_alone)


def test_a_remembered_float_offset_is_refused_as_the_inferred_one_is():
    @cuda.jit
    def tiles(source, destination, stride):
        block = coop.this_block(128)
        items = coop.ThreadData(2)
        coop.load(block, source, items, offset=cuda.blockIdx.x * stride)
        coop.store(block, destination, items)

    for _ in range(2):
        with pytest.raises(Exception, match="argument 'offset' is float64; expected an integer"):
            tiles.compile((ROW, ROW, types.float64))
