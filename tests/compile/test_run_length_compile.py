"""Kernels of the run-length runtime tests, compiled for sm_90 without a GPU: each reaches a
cubin through the planner, with the window adapter over cub::BlockRunLengthDecode of the
runs, lengths, decoded items and offset dtype the call gives: offsets of every integer dtype,
given or following the lengths or the arrays the kernel typed, window offsets of any integer
dtype (uint64 crossing whole), and decoding into memory with relative offsets beside, each
array crossing with its size (or as a strided view) for the adapter to check."""

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
        "::coop_adapt::BlockRunLengthWindow<::cuda::std::uint8_t, 8, 2, 3, ::cuda::std::uint64_t, 4, 2,"  # as the lengths
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
    "length_dtype, offset_dtype, spelled",
    [
        (np.int32, None, "int32_t"),
        (np.uint16, None, "uint32_t"),
        (np.int8, None, "int32_t"),
        (np.int32, np.uint64, "uint64_t"),
        (np.uint32, np.int64, "int64_t"),
    ],
    ids=["follows_int32", "follows_uint16_as_uint32", "follows_int8_as_int32", "uint64", "int64"],
)
def test_untyped_outputs_take_the_offset_dtype(length_dtype, offset_dtype, spelled):
    held = spelled.removesuffix("_t")
    explanation = coop.explain(
        kernels.untyped_outputs_kernel(offset_dtype),
        np.zeros(64, np.int32),
        np.zeros(64, length_dtype),
        np.zeros(32, held),
        np.zeros(64, held),
        grid=1,
        block=32,
    )
    assert f"::cuda::std::{spelled} (&relative_offsets)[2], ::cuda::std::{spelled} (&total_decoded_size)[1]" in (
        explanation.source
    )


def abi_of(explanation, method):
    """The ABI line of the run-length plan calling `method`."""
    for plan in explanation.plans:
        text = plan.describe()
        if f">::{method}\n" in text:
            return next(line for line in text.splitlines() if line.startswith("abi: "))
    raise AssertionError(f"no plan calls {method}")


@pytest.mark.parametrize(
    "start_dtype, crosses",
    [(np.uint64, "uint64_t"), (np.int64, "int64_t"), (np.int8, "int64_t"), (np.uint32, "int64_t")],
)
def test_a_window_offset_of_any_integer_dtype_crosses_whole(start_dtype, crosses):
    values, lengths, _, decoded, relative = window_arguments(32, np.int32, np.uint64, np.uint64)
    explanation = coop.explain(
        kernels.window_kernel(3, 2, np.uint64),
        values,
        lengths,
        np.zeros(2, start_dtype),
        decoded,
        relative,
        np.zeros(32, np.uint64),
        grid=1,
        block=32,
    )
    assert f"::cuda::std::{crosses} decoded_window_offset" in abi_of(explanation, "Decode")


@pytest.mark.parametrize("length_dtype", [np.int64, np.uint64, np.int32, np.uint32], ids=lambda d: np.dtype(d).name)
def test_a_run_of_the_offset_dtypes_max_compiles_with_offsets_following_the_lengths(length_dtype):
    threads = 64
    spelled = f"::cuda::std::{np.dtype(length_dtype).name}_t"
    explanation = coop.explain(
        kernels.max_run_kernel(length_dtype),
        np.zeros(threads * 2, np.uint8),
        np.zeros(threads * 2, length_dtype),
        np.zeros(1, length_dtype),
        np.zeros(threads * 3, np.uint8),
        np.zeros(threads * 3, length_dtype),
        np.zeros(threads, length_dtype),
        np.zeros(threads * 3, np.uint8),
        grid=1,
        block=threads,
    )
    calls = decode_calls(explanation)
    assert len(calls) == 2  # typed outputs and none: both count in the lengths' dtype
    assert all(f"3, {spelled}, 1, 1, {spelled}>::Decode" in call for call in calls), calls


@pytest.mark.parametrize("length_dtype", [np.uint64, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_outputs_typed_as_the_lengths_compile_in_a_3d_block(length_dtype):
    block = (8, 4, 2)
    explanation = coop.explain(
        kernels.typed_outputs_kernel(block),
        np.zeros(128, np.uint8),
        np.zeros(128, length_dtype),
        np.asarray(4, length_dtype)[()],
        np.zeros(192, np.uint8),
        np.zeros(192, length_dtype),
        np.zeros(64, length_dtype),
        grid=1,
        block=block,
    )
    spelled = f"::cuda::std::{np.dtype(length_dtype).name}_t"
    (call,) = decode_calls(explanation)
    assert (
        call == f"::coop_adapt::BlockRunLengthWindow<::cuda::std::uint8_t, 8, 2, 3, {spelled}, 4, 2, {spelled}>::Decode"
    )


def test_a_static_window_offset_past_int64_compiles():
    explanation = coop.explain(
        kernels.one_run_per_thread_kernel,
        np.zeros(32, np.float32),
        np.zeros(32, np.int32),
        np.zeros(64, np.float32),
        np.zeros(64, np.float32),
        grid=1,
        block=32,
    )
    assert "18446744073709551611ULL" in explanation.source
    assert "(3LL)" in explanation.source


def into_relative_explained(offset_dtype, destination, relative):
    return coop.explain(
        kernels.into_relative_kernel(offset_dtype),
        np.zeros(64, np.int16),
        np.zeros(64, np.uint32),
        destination,
        relative,
        np.uint64(3),
        np.zeros(32, np.uint64),
        grid=1,
        block=32,
    )


@pytest.mark.parametrize(
    "offset_dtype, relative_dtype",
    [(np.uint64, np.uint64), (None, np.uint64), (None, np.int32), (np.uint32, np.uint32)],
    ids=["uint64", "from_the_array_uint64", "from_the_array_int32", "uint32"],
)
def test_into_with_relative_offsets_passes_both_arrays_with_their_sizes(offset_dtype, relative_dtype):
    explanation = into_relative_explained(offset_dtype, np.zeros(500, np.int16), np.zeros(500, relative_dtype))
    spelled = f"::cuda::std::{np.dtype(relative_dtype).name}_t"
    abi = abi_of(explanation, "DecodeInto")
    for parameter in (
        "::cuda::std::int16_t* destination, ::cuda::std::int64_t destination_size",
        "::cuda::std::uint64_t destination_offset",
        f"{spelled}* relative_offsets, ::cuda::std::int64_t relative_offsets_size",
    ):
        assert parameter in abi, abi
    assert f"::coop_adapt::Sized<{spelled}> relative_offsets" in explanation.source
    assert "struct Sized" in explanation.source


def test_into_strided_views_cross_as_views():
    destination = np.zeros(40, np.int16)[::2]  # typed as the device views the runtime test passes
    relative = np.zeros(60, np.uint64)[::3]
    explanation = into_relative_explained(np.uint64, destination, relative)
    abi = abi_of(explanation, "DecodeInto")
    assert "destination_extent_0" in abi and "relative_offsets_stride_0" in abi
    assert "destination_size" not in abi and "relative_offsets_size" not in abi
    assert "::coop_adapt::StridedView<::cuda::std::uint64_t, 1> relative_offsets" in explanation.source
