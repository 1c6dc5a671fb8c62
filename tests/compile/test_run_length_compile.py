"""Kernels of the run-length runtime tests, compiled for sm_90 without a GPU: each reaches a
cubin through the planner, with the window adapter over cub::BlockRunLengthDecode of the
runs, lengths, decoded items and offset dtype the call gives."""

import importlib.util
import pathlib

import numpy as np
import pytest
from numba_cuda_mlir import types

from cuda import coop

_PATH = pathlib.Path(__file__).parents[1] / "runtime" / "test_run_length_runtime.py"
_SPEC = importlib.util.spec_from_file_location("run_length_kernels", _PATH)
kernels = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(kernels)


def decode_calls(explanation):
    return [
        line.split("cub: ", 1)[1]
        for plan in explanation.plans
        for line in plan.describe().splitlines()
        if line.startswith("cub: ") and "RunLength" in line
    ]


def window_arguments(threads, value_dtype, length_dtype, offset_dtype, windows=2):
    values = np.zeros(threads * 3, value_dtype)
    lengths = np.zeros(threads * 3, length_dtype)
    starts = np.zeros(windows, np.int64)
    tile = threads * 2
    return values, lengths, starts, np.zeros(tile * windows, value_dtype), np.zeros(tile * windows, offset_dtype)


@pytest.mark.parametrize("length_dtype", kernels.LENGTH_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
@pytest.mark.parametrize(
    "offset_dtype, spelled",
    [(np.uint32, "uint32_t"), (np.uint64, "uint64_t"), ("uint64", "uint64_t"), (types.uint32, "uint32_t")],
    ids=["np_uint32", "np_uint64", "name", "compiler_type"],
)
def test_every_length_dtype_and_offset_dtype_spelling_compiles(length_dtype, offset_dtype, spelled):
    arguments = window_arguments(64, np.int32, length_dtype, spelled.removesuffix("_t"))
    totals = np.zeros(64, spelled.removesuffix("_t"))
    explanation = coop.explain(kernels.window_kernel(3, 2, offset_dtype), *arguments, totals, grid=1, block=64)
    length = np.dtype(length_dtype).name
    (call,) = decode_calls(explanation)
    assert call == (
        f"::coop_adapt::BlockRunLengthWindow<::cuda::std::int32_t, 64, 3, 2, ::cuda::std::{spelled}, 1, 1, "
        f"::cuda::std::{length}_t>::Decode"
    )


@pytest.mark.parametrize("value_dtype", kernels.VALUE_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_every_value_dtype_compiles(value_dtype):
    arguments = window_arguments(32, value_dtype, np.uint16, np.uint32)
    explanation = coop.explain(
        kernels.window_kernel(3, 2, np.uint32), *arguments, np.zeros(32, np.uint32), grid=1, block=32
    )
    assert len(decode_calls(explanation)) == 1


def test_shapes_one_run_per_thread_and_into_memory_compile():
    values, lengths = np.zeros(64 * 2, np.uint8), np.zeros(64 * 2, np.uint64)
    start = np.zeros(1, np.int64)
    explanation = coop.explain(
        kernels.shaped_kernel((8, 4, 2), 2, 3),
        values,
        lengths,
        start,
        np.zeros(64 * 3, np.uint8),
        grid=1,
        block=(8, 4, 2),
    )
    (call,) = decode_calls(explanation)
    assert call.startswith(
        "::coop_adapt::BlockRunLengthWindow<::cuda::std::uint8_t, 8, 2, 3, ::cuda::std::uint32_t, 4, 2,"
    )
    into = coop.explain(
        kernels.into_kernel(2, 3, np.uint64),
        np.zeros(64, np.int16),
        np.zeros(64, np.uint32),
        np.zeros(500, np.int16),
        start,
        np.zeros(64, np.uint64),
        grid=1,
        block=32,
    )
    assert [call.rsplit("::", 1)[1] for call in decode_calls(into)] == ["DecodeInto", "Decode"]
    assert "::cuda::std::uint64_t, 1, 1, ::cuda::std::uint32_t>::DecodeInto" in decode_calls(into)[0]


@pytest.mark.parametrize(
    "offset_dtype, spelled", [(None, "uint32_t"), (np.uint64, "uint64_t")], ids=["default", "uint64"]
)
def test_untyped_outputs_take_the_offset_dtype(offset_dtype, spelled):
    explanation = coop.explain(
        kernels.untyped_outputs_kernel(offset_dtype),
        np.zeros(64, np.int32),
        np.zeros(64, np.int32),
        np.zeros(32, np.uint64),
        np.zeros(64, np.uint64),
        grid=1,
        block=32,
    )
    assert f"::cuda::std::{spelled} (&relative_offsets)[2], ::cuda::std::{spelled} (&total_decoded_size)[1]" in (
        explanation.source
    )
