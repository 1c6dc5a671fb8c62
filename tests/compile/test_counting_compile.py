"""Kernels of the counting runtime tests (block histograms), compiled for sm_90 without a GPU:
each reaches a cubin through the planner, with the counters adapter over cub::BlockHistogram
of the algorithm asked for, and counters of the extent and dtype the options give."""

import importlib.util
import pathlib

import numpy as np
import pytest
from numba_cuda_mlir import types

from cuda import coop

_PATH = pathlib.Path(__file__).parents[1] / "runtime" / "test_counting_runtime.py"
_SPEC = importlib.util.spec_from_file_location("counting_kernels", _PATH)
kernels = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(kernels)


def histogram_call(explanation):
    (line,) = [
        line.split("cub: ", 1)[1]
        for plan in explanation.plans
        for line in plan.describe().splitlines()
        if line.startswith("cub: ") and "Histogram" in line
    ]
    return line


@pytest.mark.parametrize("algorithm, enum", [("atomic", "BLOCK_HISTO_ATOMIC"), ("sort", "BLOCK_HISTO_SORT")])
@pytest.mark.parametrize(
    "counter_dtype, spelled",
    [
        (np.int32, "int32_t"),
        (np.uint32, "uint32_t"),
        (np.dtype("int64"), "int64_t"),
        (types.uint64, "uint64_t"),
        ("uint32", "uint32_t"),
        (int, "int32_t"),
        (None, "int32_t"),
    ],
    ids=["np_int32", "np_uint32", "np_dtype", "compiler_type", "name", "python_int", "default"],
)
def test_counters_take_the_dtype_however_it_is_spelled(algorithm, enum, counter_dtype, spelled):
    source = np.zeros(2 * 64 * 3, np.uint8)
    output = np.zeros(2 * 64 * 2, spelled.removesuffix("_t"))  # the counters' dtype: a store of another refuses
    kernel = kernels.tile_kernel(3, 65, 2, counter_dtype, algorithm)
    call = histogram_call(coop.explain(kernel, source, output, source, grid=2, block=64))
    assert call == (
        f"::coop_adapt::BlockHistogramCounts<::cuda::std::uint8_t, 64, 3, 65, ::cub::{enum}, 1, 1, "
        f"::cuda::std::{spelled}, 2>::Histogram"
    )


@pytest.mark.parametrize("sample_dtype", kernels.SAMPLE_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_every_sample_dtype_compiles(sample_dtype):
    source = np.zeros(64 * 3, sample_dtype)
    kernel = kernels.tile_kernel(3, 65, 2, np.int32, "sort")
    explanation = coop.explain(kernel, source, np.zeros(128, np.int32), source, grid=1, block=64)
    assert "BlockHistogramCounts" in histogram_call(explanation)


def test_a_3d_block_one_sample_per_thread_and_accumulation_compile():
    source = np.zeros(64 * 3, np.int32)
    coop.explain(kernels.shaped_kernel((8, 4, 2), 3, 97, 2, "atomic"), source, source, grid=1, block=(8, 4, 2))
    coop.explain(kernels.byte_histogram, np.zeros(2048, np.uint8), np.zeros(256, np.int32), grid=1, block=128)
