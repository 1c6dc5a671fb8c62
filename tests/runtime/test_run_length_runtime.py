"""Block run-length decoding in Python kernels, launched and compared with np.repeat: windows
over the whole stream and past it (zeros, and the offset dtype's max as relative offsets),
trailing zero-length runs and empty tiles, every length dtype, uint64 offsets past 2**32, 2-D
and 3-D blocks, one run per thread, decoding into global memory over many windows with its
margins untouched, and the inputs that trap (negative or interior zero lengths, totals past the
offset dtype, negative offsets)."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

LENGTH_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
VALUE_DTYPES = [np.int8, np.uint16, np.int32, np.int64, np.float32, np.float64]


def decoded_stream(values, lengths):
    """np.repeat of the runs, and each decoded item's index within its run."""
    lengths = np.asarray(lengths).astype(np.int64)
    within = np.concatenate([np.arange(n, dtype=np.uint64) for n in lengths]) if lengths.size else np.zeros(0)
    return np.repeat(np.asarray(values), lengths), within.astype(np.uint64)


def window(stream, start, size, fill):
    """stream[start:start + size], then `fill` to `size` items."""
    out = np.full(size, fill, dtype=stream.dtype)
    part = stream[start : start + size] if start < stream.size else stream[:0]
    out[: part.size] = part
    return out


def padded_runs(prefix, slots, dtype):
    """The lengths `prefix`, then zero-length runs to `slots`."""
    lengths = np.zeros(slots, dtype)
    lengths[: len(prefix)] = np.array(prefix, dtype=dtype)
    return lengths


def window_kernel(runs, decoded_items, offset_dtype):
    @cuda.jit
    def kernel(values, lengths, starts, decoded_out, relative_out, totals):
        block = coop.this_block()
        run_values = coop.load(block, values, coop.ThreadData(runs))
        run_lengths = coop.load(block, lengths, coop.ThreadData(runs))
        total = coop.ThreadData(1, dtype=offset_dtype)
        relative = coop.ThreadData(decoded_items, dtype=offset_dtype)
        for w in range(starts.shape[0]):
            decoded = coop.run_length_decode(
                block,
                run_values,
                run_lengths,
                decoded_items_per_thread=decoded_items,
                decoded_window_offset=starts[w],
                total_decoded_size=total,
                relative_offsets=relative,
                decoded_offset_dtype=offset_dtype,
            )
            coop.store(block, decoded_out, decoded, offset=w * decoded_out.shape[0] // starts.shape[0])
            coop.store(block, relative_out, relative, offset=w * relative_out.shape[0] // starts.shape[0])
        totals[cuda.threadIdx.x] = total[0]
        coop.store(block, values, run_values)  # the runs are left as they were
        coop.store(block, lengths, run_lengths)

    return kernel


def run_windows(values, lengths, starts, threads, runs, decoded_items, offset_dtype=np.uint32):
    tile = threads * decoded_items
    starts = np.asarray(starts, np.int64)
    decoded = np.full(tile * starts.size, 99, values.dtype)
    relative = np.full(tile * starts.size, 99, offset_dtype)
    totals = np.zeros(threads, offset_dtype)
    given_values, given_lengths = values.copy(), lengths.copy()
    window_kernel(runs, decoded_items, offset_dtype)[1, threads](values, lengths, starts, decoded, relative, totals)
    np.testing.assert_array_equal(values, given_values)
    np.testing.assert_array_equal(lengths, given_lengths)
    return decoded.reshape(starts.size, tile), relative.reshape(starts.size, tile), totals


LENGTH_PREFIXES = {"empty": [], "two_runs": [3, 2], "every_run_one": [1] * 64, "long_runs": [10, 200, 4]}


@pytest.mark.parametrize("prefix", LENGTH_PREFIXES.values(), ids=LENGTH_PREFIXES.keys())
@pytest.mark.parametrize(
    "value_dtype, length_dtype", [(np.int8, np.uint16), (np.float32, np.int64), (np.float64, np.uint64)]
)
def test_windows_match_np_repeat_and_zero_past_the_total(value_dtype, length_dtype, prefix):
    threads, runs, decoded_items = 32, 2, 3
    tile = threads * decoded_items
    values = (np.arange(threads * runs) * 3 + 1).astype(value_dtype)
    lengths = padded_runs(prefix, threads * runs, length_dtype)
    stream, within = decoded_stream(values, lengths)
    total = stream.size
    starts = [0, 2, tile, total, total + 1, 2**32 + 2]
    decoded, relative, totals = run_windows(values, lengths, starts, threads, runs, decoded_items)
    for row, start in enumerate(starts):
        np.testing.assert_array_equal(decoded[row], window(stream, start, tile, 0))
        np.testing.assert_array_equal(relative[row], window(within.astype(np.uint32), start, tile, 2**32 - 1))
    np.testing.assert_array_equal(totals, total)


@pytest.mark.parametrize("length_dtype", LENGTH_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
@pytest.mark.parametrize("offset_dtype", [np.uint32, np.uint64], ids=["uint32", "uint64"])
def test_every_length_dtype_with_each_offset_dtype_over_many_windows(length_dtype, offset_dtype):
    threads, runs, decoded_items = 64, 3, 2
    tile = threads * decoded_items
    rng = np.random.default_rng(11)
    values = rng.integers(-1000, 1000, threads * runs).astype(np.int32)
    lengths = rng.integers(1, 6, threads * runs).astype(length_dtype)
    lengths[-7:] = 0  # trailing zero-length runs: fewer runs
    stream, within = decoded_stream(values, lengths)
    starts = list(range(0, stream.size + tile, tile))
    decoded, relative, totals = run_windows(values, lengths, starts, threads, runs, decoded_items, offset_dtype)
    sentinel = np.iinfo(offset_dtype).max
    for row, start in enumerate(starts):
        np.testing.assert_array_equal(decoded[row], window(stream, start, tile, 0))
        np.testing.assert_array_equal(relative[row], window(within.astype(offset_dtype), start, tile, sentinel))
    np.testing.assert_array_equal(totals, stream.size)
    assert totals.dtype == np.dtype(offset_dtype)


def test_relative_offsets_and_the_total_of_a_short_stream():
    threads = 128
    values = np.zeros(threads, np.int32)
    values[:2] = [7, 9]
    lengths = padded_runs([3, 2], threads, np.uint32)
    decoded, relative, totals = run_windows(values, lengths, [2], threads, 1, 4)
    np.testing.assert_array_equal(decoded[0][:4], [7, 9, 9, 0])
    np.testing.assert_array_equal(decoded[0][3:], 0)
    np.testing.assert_array_equal(relative[0][:3], [2, 0, 1])
    np.testing.assert_array_equal(relative[0][3:], 2**32 - 1)
    np.testing.assert_array_equal(totals, 5)


@pytest.mark.parametrize("total", [2**32 + 5, 2**40 + 1], ids=["past_uint32", "past_2_40"])
def test_uint64_offsets_decode_past_the_uint32_range(total):
    threads = 32
    values = np.zeros(threads, np.int16)
    values[:2] = [7, 9]
    lengths = padded_runs([total - 2, 2], threads, np.uint64)
    decoded, relative, totals = run_windows(values, lengths, [total - 3], threads, 1, 3, np.uint64)
    np.testing.assert_array_equal(decoded[0][:3], [7, 9, 9])
    np.testing.assert_array_equal(decoded[0][3:], 0)
    np.testing.assert_array_equal(relative[0][:3], np.array([total - 3, 0, 1], np.uint64))
    np.testing.assert_array_equal(relative[0][3:], np.iinfo(np.uint64).max)
    np.testing.assert_array_equal(totals, total)


def shaped_kernel(block_shape, runs, decoded_items):
    @cuda.jit
    def kernel(values, lengths, start, decoded_out):
        block = coop.this_block()
        rank = cuda.threadIdx.x + block_shape[0] * (cuda.threadIdx.y + block_shape[1] * cuda.threadIdx.z)
        run_values = coop.ThreadData(runs, dtype=np.uint8)
        run_lengths = coop.ThreadData(runs, dtype=np.uint64)
        for i in range(runs):
            run_values[i] = values[rank * runs + i]
            run_lengths[i] = lengths[rank * runs + i]
        decoded = coop.run_length_decode(
            block, run_values, run_lengths, decoded_items_per_thread=decoded_items, decoded_window_offset=start[0]
        )
        for i in range(decoded_items):
            decoded_out[rank * decoded_items + i] = decoded[i]

    return kernel


@pytest.mark.parametrize("block_shape", [(8, 4, 2), (32, 3, 1)], ids=["3d", "2d"])
def test_blocks_of_more_dimensions_decode_by_linear_rank(block_shape):
    threads = block_shape[0] * block_shape[1] * block_shape[2]
    runs, decoded_items = 2, 3
    values = (np.arange(threads * runs) % 251 + 1).astype(np.uint8)
    lengths = padded_runs([2, 1, 3, 4, 1, 2, 3] * 5, threads * runs, np.uint64)
    stream, _ = decoded_stream(values, lengths)
    for start in (4, stream.size + 3):
        output = np.full(threads * decoded_items, 77, np.uint8)
        shaped_kernel(block_shape, runs, decoded_items)[1, block_shape](
            values, lengths, np.array([start], np.int64), output
        )
        np.testing.assert_array_equal(output, window(stream, start, threads * decoded_items, 0))


def test_one_run_per_thread_and_a_static_offset():
    @cuda.jit
    def kernel(values, lengths, output):
        block = coop.this_block()
        decoded = coop.run_length_decode(
            block,
            values[cuda.threadIdx.x],
            lengths[cuda.threadIdx.x],
            decoded_items_per_thread=2,
            decoded_window_offset=3,
        )
        coop.store(block, output, decoded)

    values = np.arange(32, dtype=np.float32) + 0.5
    lengths = (np.arange(32) % 3 + 1).astype(np.int32)
    output = np.full(64, -1, np.float32)
    kernel[1, 32](values, lengths, output)
    np.testing.assert_array_equal(output, window(np.repeat(values, lengths), 3, 64, 0))


def into_kernel(runs, decoded_items, offset_dtype):
    @cuda.jit
    def kernel(values, lengths, destination, start, totals):
        block = coop.this_block()
        scratch = coop.TempStorage()
        run_values = coop.load(block, values, coop.ThreadData(runs))
        run_lengths = coop.load(block, lengths, coop.ThreadData(runs))
        total = coop.run_length_decode_into(
            block,
            run_values,
            run_lengths,
            destination,
            decoded_items_per_thread=decoded_items,
            destination_offset=start[0],
            decoded_offset_dtype=offset_dtype,
            temp_storage=scratch,
        )
        totals[cuda.threadIdx.x] = total
        # The same scratch serves a window call after it.
        first = coop.run_length_decode(block, run_values, run_lengths, decoded_items_per_thread=1, temp_storage=scratch)
        totals[cuda.blockDim.x + cuda.threadIdx.x] = first[0]

    return kernel


INTO_PREFIXES = {"empty": [], "two_runs": [3, 2], "many_windows": [1, 401, 3], "every_run_four": [4] * 64}


@pytest.mark.parametrize("prefix", INTO_PREFIXES.values(), ids=INTO_PREFIXES.keys())
@pytest.mark.parametrize("threads", [32, 37])
@pytest.mark.parametrize("offset_dtype", [np.uint32, np.uint64], ids=["uint32", "uint64"])
def test_into_writes_the_stream_and_leaves_the_margins(prefix, threads, offset_dtype):
    runs, decoded_items, start = 2, 3, 3
    values = (np.arange(threads * runs) + 10).astype(np.int16)
    lengths = padded_runs(prefix, threads * runs, np.uint32)
    stream, _ = decoded_stream(values, lengths)
    destination = np.full(start + stream.size + 5, 9999, np.int16)
    destination[:start] = -1
    totals = np.zeros(2 * threads, np.uint64)
    into_kernel(runs, decoded_items, offset_dtype)[1, threads](
        values, lengths, destination, np.array([start], np.int64), totals
    )
    np.testing.assert_array_equal(destination[:start], -1)
    np.testing.assert_array_equal(destination[start : start + stream.size], stream)
    np.testing.assert_array_equal(destination[start + stream.size :], 9999)
    np.testing.assert_array_equal(totals[:threads], stream.size)
    np.testing.assert_array_equal(totals[threads:], window(stream, 0, threads, 0).astype(np.uint64))


# Launches that trap: run in a child process through traps_in_child.


def launch_window(prefix, start=0, offset_dtype=np.uint32):
    threads = 32
    lengths = padded_runs(prefix, threads * 2, prefix.dtype)
    values = np.arange(threads * 2, dtype=np.int32)
    starts = np.array([start], np.int64)
    decoded = np.zeros(threads * 3, np.int32)
    relative = np.zeros(threads * 3, offset_dtype)
    totals = np.zeros(threads, offset_dtype)
    window_kernel(2, 3, offset_dtype)[1, threads](values, lengths, starts, decoded, relative, totals)


def launch_negative_length():
    launch_window(np.array([3, -1, 2], np.int64))


def launch_interior_zero():
    launch_window(np.array([0, 3, 2], np.int64))


def launch_interior_zero_across_threads():
    launch_window(np.array([3, 1, 0, 0, 2], np.uint8))


def launch_total_past_uint32():
    launch_window(np.array([2**32 - 1, 1], np.uint64))


def launch_length_past_uint32():
    launch_window(np.array([2**32, 1], np.uint64))


def launch_total_without_a_tile_of_headroom():
    launch_window(np.array([2**32 - 1 - 96 + 1], np.uint64))


def launch_total_past_uint64():
    launch_window(np.array([2**63, 2**63], np.uint64), offset_dtype=np.uint64)


def launch_negative_offset():
    launch_window(np.array([3, 2], np.int64), start=-1)


def launch_into_negative_destination_offset():
    threads = 32
    values = np.arange(threads * 2, dtype=np.int16)
    lengths = padded_runs([3, 2], threads * 2, np.uint32)
    destination = np.zeros(16, np.int16)
    into_kernel(2, 3, np.uint32)[1, threads](
        values, lengths, destination, np.array([-1], np.int64), np.zeros(2 * threads, np.uint64)
    )


@pytest.mark.parametrize(
    "launch",
    [
        launch_negative_length,
        launch_interior_zero,
        launch_interior_zero_across_threads,
        launch_total_past_uint32,
        launch_length_past_uint32,
        launch_total_without_a_tile_of_headroom,
        launch_total_past_uint64,
        launch_negative_offset,
        launch_into_negative_destination_offset,
    ],
    ids=lambda launch: launch.__name__.removeprefix("launch_"),
)
def test_bad_runs_and_offsets_trap(traps_in_child, launch):
    traps_in_child(launch)


def test_the_largest_total_with_a_tile_of_headroom_decodes():
    threads = 32
    total = 2**32 - 1 - threads * 3
    values = np.zeros(threads, np.int32)
    values[:2] = [5, 6]
    lengths = padded_runs([total - 1, 1], threads, np.uint64)
    decoded, relative, totals = run_windows(values, lengths, [total - 2], threads, 1, 3)
    np.testing.assert_array_equal(decoded[0][:3], [5, 6, 0])
    np.testing.assert_array_equal(relative[0][:3], [total - 2, 0, 2**32 - 1])
    np.testing.assert_array_equal(totals, total)


def untyped_outputs_kernel(offset_dtype):
    @cuda.jit
    def kernel(values, lengths, totals, relatives):
        block = coop.this_block()
        total = coop.ThreadData(1)  # untyped: they take the offset dtype
        relative = coop.ThreadData(2)
        run_values = coop.load(block, values, coop.ThreadData(2))
        run_lengths = coop.load(block, lengths, coop.ThreadData(2))
        coop.run_length_decode(
            block,
            run_values,
            run_lengths,
            decoded_items_per_thread=2,
            total_decoded_size=total,
            relative_offsets=relative,
            decoded_offset_dtype=offset_dtype,
        )
        totals[cuda.threadIdx.x] = total[0]
        for i in range(2):
            relatives[cuda.threadIdx.x * 2 + i] = relative[i]

    return kernel


@pytest.mark.parametrize("offset_dtype", [None, np.uint64], ids=["default_uint32", "uint64"])
def test_untyped_outputs_take_the_offset_dtype(offset_dtype):
    threads = 32
    values = np.arange(threads * 2, dtype=np.int32)
    lengths = padded_runs([3, 2], threads * 2, np.int32)
    totals = np.zeros(threads, np.uint64)
    relatives = np.zeros(threads * 2, np.uint64)
    untyped_outputs_kernel(offset_dtype)[1, threads](values, lengths, totals, relatives)
    sentinel = np.iinfo(offset_dtype or np.uint32).max
    np.testing.assert_array_equal(totals, 5)
    np.testing.assert_array_equal(relatives[:5], [0, 1, 2, 0, 1])
    np.testing.assert_array_equal(relatives[5:], sentinel)
