"""The row workloads' kernels (benchmarks/row_kernels.py: the examples' selective scan, layer
norm, softmax and cumsum at the shapes benchmarks/workloads.py times) plan, compile and link
for sm_90 without a GPU, without local memory."""

import importlib.util
import pathlib

import pytest

from cuda import coop

_PATH = pathlib.Path(__file__).parents[2] / "benchmarks" / "row_kernels.py"
_SPEC = importlib.util.spec_from_file_location("row_kernels", _PATH)
row_kernels = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(row_kernels)

LAUNCHES = row_kernels.launches()


@pytest.mark.parametrize("launch", LAUNCHES, ids=[launch[0] for launch in LAUNCHES])
def test_workload_kernel_links_without_local_memory(launch):
    _, kernel, arguments, grid, block = launch
    explanation = coop.explain(kernel, *arguments, grid=grid, block=block)
    assert explanation.resources.local_bytes == 0, explanation.resources
