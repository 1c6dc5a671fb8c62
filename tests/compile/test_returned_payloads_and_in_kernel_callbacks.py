"""Things a first kernel writes that used to fail to compile: reading
`items.items_per_thread` of the payload `load` returned, a StatefulFunction built in
the kernel from compile-time values, and a block reduction of a partial ThreadData tile. The GPU tests that check their results compile here
for sm_90 without a GPU."""

import importlib.util
import pathlib

from numba_cuda_mlir import types

from cuda.coop.numba_mlir import _planner
from cuda.coop.numba_mlir._explain import compile_for_launch

I32 = types.Array(types.int32, 1, "C")


def _load(file_name):
    path = pathlib.Path(__file__).parents[1] / "runtime" / file_name
    spec = importlib.util.spec_from_file_location(file_name[:-3] + "_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_payload_load_returns_has_its_extent():
    kernel = _load("test_load_returns_runtime.py").copy_by_the_returned_extent
    result = compile_for_launch(kernel, (I32, I32), grid=1, block=64)
    assert result.metadata["cubin"][:4] == b"\x7fELF"


def test_a_stateful_function_built_in_the_kernel_compiles_as_one_built_outside():
    kernel = _load("test_stateful_prefix_runtime.py").running_sum_built_in_the_kernel
    result = compile_for_launch(kernel, (I32, I32, types.int64), grid=1, block=128)
    assert "StatefulFunction" not in result.metadata["mlir_module_str"]
    assert result.metadata["cubin"][:4] == b"\x7fELF"


def test_a_block_reduction_of_a_partial_thread_data_compiles_through_the_partial_adapter():
    kernel = _load("test_reduce_scan_runtime.py").partial_tile_reductions
    recorded = []
    _planner._explain_recorders.append(lambda state, linked, bundle: recorded.append(linked))
    try:
        compile_for_launch(kernel, (I32, I32, types.int64), grid=1, block=128)
    finally:
        _planner._explain_recorders.pop()
    described = [call.plan.describe() for call in recorded[-1]][1:]  # after the load
    assert len(described) == 3
    for text in described:
        assert "called through: ::coop_adapt::BlockReducePartial<" in text
        assert "valid_items: RUNTIME" in text
