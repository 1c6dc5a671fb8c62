"""A kernel that declares its block (coop.this_block(128), (32, 4)) compiles once per
argument types, not per launch: the planner plans for the declared block, so the
kernel is not specialized on its launch (a new grid or dynamic shared memory size
compiles nothing, and launches take the plain path); a launch with another block is
refused with an error naming both. Without a GPU: compiles target sm_90 and
launches are only configured. A kernel without a declared block: test_undeclared_block.py."""

import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._explain import _capability, compile_for_launch

ARRAY = types.Array(types.float32, 1, "C")


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


def declared_kernel(shape):
    @cuda.jit
    def scan(source, destination):
        block = coop.this_block(shape)
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, coop.inclusive_sum(block, items))

    return scan


def test_a_declared_block_compiles_a_generic_overload_once():
    kernel = declared_kernel((32, 4))
    result = kernel.compile((ARRAY, ARRAY))
    assert result.metadata["cubin"][:4] == b"\x7fELF"
    assert not kernel._requires_launch_config  # no launch specialization: any grid reuses this overload
    assert kernel._coop_declared_block == (32, 4, 1)
    assert len(kernel.overloads) == 1
    # Configuring launches with other grids and shared memory compiles nothing.
    for grid, sharedmem in [(1, 0), (1000, 0), ((7, 3), 4096)]:
        kernel[grid, (32, 4), 0, sharedmem]
    assert len(kernel.overloads) == 1 and not kernel._launch_config_overloads


@pytest.mark.parametrize("block", [128, (4, 32), (32, 4, 2)])
def test_a_launch_with_another_block_is_refused_when_configured(block):
    kernel = declared_kernel((32, 4))
    kernel.compile((ARRAY, ARRAY))
    kernel[1, (32, 4)]  # the declared block: fine
    with pytest.raises(coop.InvalidGroupError) as refused:
        kernel[1, block]
    message = str(refused.value)
    assert "declares coop.this_block((32, 4)), a block of (32, 4, 1)" in message
    assert "launch it with the block it declares" in message


def test_a_launch_with_another_block_is_refused_when_it_compiles():
    with pytest.raises(
        coop.InvalidGroupError, match=r"coop.this_block\(128\) declares a block of \(128,\).*\(64, 1, 1\)"
    ):
        compile_for_launch(declared_kernel(128), [ARRAY, ARRAY], 1, 64)


def test_the_declared_block_plans_the_kernel():
    explained = coop.explain(declared_kernel(64), *[__import__("numpy").zeros(128, "float32")] * 2, grid=1, block=64)
    assert all("64" in plan.describe() for plan in explained.plans)
