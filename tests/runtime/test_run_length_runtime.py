"""Block run-length decoding in Python kernels, launched and compared with np.repeat: windows
over the whole stream and past it (zeros, and the offset dtype's max, or -1 for a signed one, as
relative offsets), trailing zero-length runs and empty tiles, every length dtype and offset dtype,
offsets following the lengths' dtype or the arrays the kernel typed, window offsets of uint64 past
2**63 that must not wrap, uint64 offsets past 2**32 and runs up to the offset dtype's max (only the
window is materialized), 2-D and 3-D blocks, one run per thread, decoding into global memory over
many windows with relative offsets beside and the margins untouched, and the inputs that trap
(negative or interior zero lengths, totals past the offset dtype, negative offsets, arrays too
small for what decoding into memory writes)."""

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


def followed_dtype(length_dtype):
    """The offset dtype that follows the lengths': theirs, widened to 32 bits when narrower."""
    widened = {"int8": np.int32, "int16": np.int32, "uint8": np.uint32, "uint16": np.uint32}
    return np.dtype(widened.get(np.dtype(length_dtype).name, length_dtype))


def no_relative_offset(offset_dtype):
    """What a relative offset past the total is: the dtype's max, or -1 for a signed dtype."""
    offset_dtype = np.dtype(offset_dtype)
    return np.iinfo(offset_dtype).max if offset_dtype.kind == "u" else -1


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


def run_windows(values, lengths, starts, threads, runs, decoded_items, offset_dtype=np.uint32, start_dtype=np.int64):
    """Each window of `starts` (an array of `start_dtype`: the offset's runtime dtype) decoded with
    its relative offsets, and the totals."""
    tile = threads * decoded_items
    starts = np.asarray(starts, start_dtype)
    held = offset_dtype or followed_dtype(lengths.dtype)  # None: the offsets follow the lengths' dtype
    decoded = np.full(tile * starts.size, 99, values.dtype)
    relative = np.full(tile * starts.size, 99, held)
    totals = np.zeros(threads, held)
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
@pytest.mark.parametrize("start_dtype", [np.int64, np.uint64], ids=["int64_offsets", "uint64_offsets"])
def test_windows_match_np_repeat_and_zero_past_the_total(value_dtype, length_dtype, prefix, start_dtype):
    threads, runs, decoded_items = 32, 2, 3
    tile = threads * decoded_items
    values = (np.arange(threads * runs) * 3 + 1).astype(value_dtype)
    lengths = padded_runs(prefix, threads * runs, length_dtype)
    stream, within = decoded_stream(values, lengths)
    total = stream.size
    starts = [0, 2, tile, total, total + 1, 2**32 + 2]
    decoded, relative, totals = run_windows(
        values, lengths, starts, threads, runs, decoded_items, np.uint32, start_dtype
    )
    for row, start in enumerate(starts):
        np.testing.assert_array_equal(decoded[row], window(stream, start, tile, 0))
        np.testing.assert_array_equal(relative[row], window(within.astype(np.uint32), start, tile, 2**32 - 1))
    np.testing.assert_array_equal(totals, total)


OFFSET_DTYPES = [None, np.int16, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("length_dtype", LENGTH_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
@pytest.mark.parametrize(
    "offset_dtype", OFFSET_DTYPES, ids=lambda dtype: "follows" if dtype is None else np.dtype(dtype).name
)
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
    held = offset_dtype or followed_dtype(length_dtype)
    for row, start in enumerate(starts):
        np.testing.assert_array_equal(decoded[row], window(stream, start, tile, 0))
        expected = window(within.astype(held), start, tile, no_relative_offset(held))
        np.testing.assert_array_equal(relative[row], expected)
    np.testing.assert_array_equal(totals, stream.size)
    assert totals.dtype == np.dtype(held)


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


# Streams far longer than memory: only the window is materialized.


@pytest.mark.parametrize("total", [2**32 + 5, 2**40 + 1, 2**64 - 65], ids=["past_uint32", "past_2_40", "near_2_64"])
def test_uint64_offsets_decode_past_the_uint32_range(total):
    threads = 32
    values = np.zeros(threads, np.int16)
    values[:2] = [7, 9]
    lengths = padded_runs([total - 2, 2], threads, np.uint64)
    decoded, relative, totals = run_windows(values, lengths, [total - 3], threads, 1, 2, np.uint64, np.uint64)
    np.testing.assert_array_equal(decoded[0][:3], [7, 9, 9])
    np.testing.assert_array_equal(decoded[0][3:], 0)
    np.testing.assert_array_equal(relative[0][:3], np.array([total - 3, 0, 1], np.uint64))
    np.testing.assert_array_equal(relative[0][3:], np.iinfo(np.uint64).max)
    np.testing.assert_array_equal(totals, total)


@pytest.mark.parametrize(
    "start, start_dtype",
    [(2**64 - 5, np.uint64), (2**64 - 96, np.uint64), (2**63, np.uint64), (2**63 - 1, np.int64)],
    ids=["max_minus_4", "a_tile_below_max", "past_int64", "int64_max"],
)
def test_a_window_near_the_top_of_the_index_range_does_not_wrap_into_the_stream(start, start_dtype):
    threads, runs, decoded_items = 32, 2, 3
    values = (np.arange(threads * runs) + 11).astype(np.uint8)
    lengths = padded_runs([2, 1, 3, 4, 1, 2, 3], threads * runs, np.uint64)
    decoded, relative, totals = run_windows(
        values, lengths, [start], threads, runs, decoded_items, np.uint64, start_dtype
    )
    np.testing.assert_array_equal(decoded[0], 0)
    np.testing.assert_array_equal(relative[0], np.iinfo(np.uint64).max)
    np.testing.assert_array_equal(totals, 16)


def max_run_kernel(length_dtype):
    """One run of the lengths' max per block: the offsets follow the lengths' dtype (the typed
    outputs say so too), the window offset is of it as well."""

    @cuda.jit
    def kernel(values, lengths, start, decoded_out, relative_out, totals, plain_out):
        block = coop.this_block()
        run_values = coop.load(block, values, coop.ThreadData(2))
        run_lengths = coop.load(block, lengths, coop.ThreadData(2))
        relative = coop.ThreadData(3, dtype=length_dtype)
        total = coop.ThreadData(1, dtype=length_dtype)
        decoded = coop.run_length_decode(
            block,
            run_values,
            run_lengths,
            decoded_items_per_thread=3,
            decoded_window_offset=start[0],
            relative_offsets=relative,
            total_decoded_size=total,
        )
        plain = coop.run_length_decode(  # nothing typed: the offsets follow the lengths' dtype
            block, run_values, run_lengths, decoded_items_per_thread=3, decoded_window_offset=start[0]
        )
        coop.store(block, decoded_out, decoded)
        coop.store(block, relative_out, relative)
        coop.store(block, plain_out, plain)
        totals[cuda.threadIdx.x] = total[0]

    return kernel


@pytest.mark.parametrize("length_dtype", [np.int64, np.uint64, np.int32, np.uint32], ids=lambda d: np.dtype(d).name)
def test_a_run_of_the_offset_dtypes_max_decodes_its_last_items(length_dtype):
    threads = 64
    largest = int(np.iinfo(length_dtype).max)
    values = np.zeros(threads * 2, np.uint8)
    values[0] = 42
    lengths = padded_runs([largest], threads * 2, length_dtype)
    start = np.array([largest - 5], length_dtype)
    decoded = np.full(threads * 3, 77, np.uint8)
    plain = np.full(threads * 3, 77, np.uint8)
    relative = np.zeros(threads * 3, length_dtype)
    totals = np.zeros(threads, length_dtype)
    max_run_kernel(length_dtype)[1, threads](values, lengths, start, decoded, relative, totals, plain)
    expected = np.zeros(threads * 3, np.uint8)
    expected[:5] = 42
    np.testing.assert_array_equal(decoded, expected)
    np.testing.assert_array_equal(plain, expected)
    expected_relative = np.full(threads * 3, no_relative_offset(length_dtype), length_dtype)
    expected_relative[:5] = np.arange(largest - 5, largest, dtype=length_dtype)
    np.testing.assert_array_equal(relative, expected_relative)
    np.testing.assert_array_equal(totals, largest)


def typed_outputs_kernel(block_shape):
    """The seed's shape: relative offsets and the total typed as the lengths, no offset dtype given."""

    @cuda.jit
    def kernel(values, lengths, start, decoded_out, relative_out, totals):
        rank = cuda.threadIdx.x + block_shape[0] * (cuda.threadIdx.y + block_shape[1] * cuda.threadIdx.z)
        run_values = coop.ThreadData(2, dtype=values.dtype)
        run_lengths = coop.ThreadData(2, dtype=lengths.dtype)
        for i in range(2):
            run_values[i] = values[rank * 2 + i]
            run_lengths[i] = lengths[rank * 2 + i]
        relative = coop.ThreadData(3, dtype=lengths.dtype)
        total = coop.ThreadData(1, dtype=lengths.dtype)
        decoded = coop.run_length_decode(
            coop.this_block(),
            run_values,
            run_lengths,
            decoded_items_per_thread=3,
            decoded_window_offset=start,
            relative_offsets=relative,
            total_decoded_size=total,
        )
        for i in range(3):
            decoded_out[rank * 3 + i] = decoded[i]
            relative_out[rank * 3 + i] = relative[i]
        totals[rank] = total[0]

    return kernel


@pytest.mark.parametrize(
    "value_dtype, length_dtype",
    [(np.uint8, np.uint64), (np.int32, np.int32), (np.uint32, np.uint32), (np.int64, np.int64), (np.uint64, np.uint32)],
    ids=lambda dtype: np.dtype(dtype).name,
)
def test_outputs_typed_as_the_lengths_choose_the_offsets_and_signed_ones_mark_the_tail_with_minus_one(
    value_dtype, length_dtype
):
    block_shape = (8, 4, 2)
    threads = 64
    values = (np.arange(threads * 2, dtype=np.uint64) + 11).astype(value_dtype)
    lengths = padded_runs([2, 1, 3, 4, 1, 2, 3], threads * 2, length_dtype)
    stream, within = decoded_stream(values, lengths)
    for start in (4, stream.size + 3):
        decoded = np.full(threads * 3, 77, value_dtype)
        relative = np.zeros(threads * 3, length_dtype)
        totals = np.zeros(threads, length_dtype)
        typed_outputs_kernel(block_shape)[1, block_shape](
            values, lengths, np.asarray(start, length_dtype)[()], decoded, relative, totals
        )
        np.testing.assert_array_equal(decoded, window(stream, start, threads * 3, 0))
        expected = window(within.astype(length_dtype), start, threads * 3, no_relative_offset(length_dtype))
        np.testing.assert_array_equal(relative, expected)
        np.testing.assert_array_equal(totals, stream.size)


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


@cuda.jit
def one_run_per_thread_kernel(values, lengths, output, beyond):
    block = coop.this_block()
    decoded = coop.run_length_decode(
        block,
        values[cuda.threadIdx.x],
        lengths[cuda.threadIdx.x],
        decoded_items_per_thread=2,
        decoded_window_offset=3,
    )
    coop.store(block, output, decoded)
    far = coop.run_length_decode(  # a constant past int64's range
        block,
        values[cuda.threadIdx.x],
        lengths[cuda.threadIdx.x],
        decoded_items_per_thread=2,
        decoded_window_offset=2**64 - 5,
    )
    coop.store(block, beyond, far)


def test_one_run_per_thread_and_static_offsets():
    values = np.arange(32, dtype=np.float32) + 0.5
    lengths = (np.arange(32) % 3 + 1).astype(np.int32)
    output = np.full(64, -1, np.float32)
    beyond = np.full(64, -1, np.float32)
    one_run_per_thread_kernel[1, 32](values, lengths, output, beyond)
    np.testing.assert_array_equal(output, window(np.repeat(values, lengths), 3, 64, 0))
    np.testing.assert_array_equal(beyond, 0)


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


@pytest.mark.parametrize(
    "length_dtype, offset_dtype",
    [(np.int32, None), (np.uint16, None), (np.int32, np.uint64), (np.uint32, np.uint32), (np.uint32, np.int64)],
    ids=["follows_int32", "follows_uint16_as_uint32", "uint64", "uint32", "int64"],
)
def test_untyped_outputs_take_the_offset_dtype(length_dtype, offset_dtype):
    threads = 32
    values = np.arange(threads * 2, dtype=np.int32)
    lengths = padded_runs([3, 2], threads * 2, length_dtype)
    held = np.dtype(offset_dtype or followed_dtype(length_dtype))
    totals = np.zeros(threads, held)
    relatives = np.zeros(threads * 2, held)
    untyped_outputs_kernel(offset_dtype)[1, threads](values, lengths, totals, relatives)
    np.testing.assert_array_equal(totals, 5)
    np.testing.assert_array_equal(relatives[:5], [0, 1, 2, 0, 1])
    np.testing.assert_array_equal(relatives[5:], no_relative_offset(held))


# Into global memory.


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


def into_relative_kernel(offset_dtype):
    """Decoding into memory with each item's index within its run beside it; `offset_dtype` None
    leaves the offset dtype to the relative offsets' array."""

    @cuda.jit
    def kernel(values, lengths, destination, relative, start, totals):
        block = coop.this_block()
        scratch = coop.TempStorage(auto_sync=True)
        run_values = coop.load(block, values, coop.ThreadData(2))
        run_lengths = coop.load(block, lengths, coop.ThreadData(2))
        total = coop.run_length_decode_into(
            block,
            run_values,
            run_lengths,
            destination,
            decoded_items_per_thread=3,
            destination_offset=start,
            relative_offsets=relative,
            decoded_offset_dtype=offset_dtype,
            temp_storage=scratch,
        )
        totals[cuda.threadIdx.x] = total

    return kernel


@pytest.mark.parametrize("prefix", INTO_PREFIXES.values(), ids=INTO_PREFIXES.keys())
@pytest.mark.parametrize("threads", [32, 37])
@pytest.mark.parametrize(
    "offset_dtype, relative_dtype",
    [(np.uint64, np.uint64), (None, np.uint64), (None, np.int32), (np.uint32, np.uint32)],
    ids=["uint64", "from_the_array_uint64", "from_the_array_int32", "uint32"],
)
def test_into_writes_relative_offsets_at_the_items_positions(prefix, threads, offset_dtype, relative_dtype):
    values = (np.arange(threads * 2) + 7).astype(np.int16)
    lengths = padded_runs(prefix, threads * 2, np.uint32)
    stream, within = decoded_stream(values, lengths)
    start = 3
    destination = np.full(start + stream.size + 10, -1, np.int16)
    relative = np.full(destination.size, 9999, relative_dtype)
    totals = np.zeros(threads, np.uint64)
    into_relative_kernel(offset_dtype)[1, threads](values, lengths, destination, relative, np.uint64(start), totals)
    np.testing.assert_array_equal(destination[start : start + stream.size], stream)
    np.testing.assert_array_equal(relative[start : start + stream.size], within.astype(relative_dtype))
    assert np.all(destination[:start] == -1) and np.all(destination[start + stream.size :] == -1)
    assert np.all(relative[:start] == 9999) and np.all(relative[start + stream.size :] == 9999)
    np.testing.assert_array_equal(totals, stream.size)


def test_into_strided_views_hold_the_stream_at_their_own_positions():
    threads = 32
    values = (np.arange(threads * 2) + 7).astype(np.int16)
    lengths = padded_runs([3, 1, 4, 1, 5], threads * 2, np.uint32)
    stream, within = decoded_stream(values, lengths)
    start = 2
    whole = cuda.to_device(np.full(2 * (start + stream.size), -1, np.int16))
    whole_relative = cuda.to_device(np.full(3 * (start + stream.size), 9999, np.uint64))
    totals = np.zeros(threads, np.uint64)
    into_relative_kernel(np.uint64)[1, threads](
        values, lengths, whole[::2], whole_relative[::3], np.uint64(start), totals
    )
    destination, relative = whole.copy_to_host(), whole_relative.copy_to_host()
    np.testing.assert_array_equal(destination[::2][start:], stream)
    np.testing.assert_array_equal(destination[1::2], -1)
    np.testing.assert_array_equal(relative[::3][start:], within)
    np.testing.assert_array_equal(relative[1::3], 9999)
    np.testing.assert_array_equal(totals, stream.size)


def test_into_the_destination_exactly_the_streams_size_is_enough():
    threads = 32
    values = (np.arange(threads * 2) + 7).astype(np.int16)
    lengths = padded_runs([5, 2], threads * 2, np.uint32)
    stream, within = decoded_stream(values, lengths)
    destination = np.full(4 + stream.size, -1, np.int16)
    relative = np.zeros(4 + stream.size, np.uint32)
    totals = np.zeros(threads, np.uint64)
    into_relative_kernel(None)[1, threads](values, lengths, destination, relative, np.uint64(4), totals)
    np.testing.assert_array_equal(destination[4:], stream)
    np.testing.assert_array_equal(relative[4:], within)


# Launches that trap: run in a child process through traps_in_child.


def launch_window(prefix, start=0, offset_dtype=np.uint32, start_dtype=np.int64):
    threads = 32
    lengths = padded_runs(prefix, threads * 2, prefix.dtype)
    values = np.arange(threads * 2, dtype=np.int32)
    starts = np.array([start], start_dtype)
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


def launch_total_past_int32():
    launch_window(np.array([2**31 - 1, 1], np.int64), offset_dtype=np.int32)


def launch_total_past_uint8():
    launch_window(np.array([200, 56], np.uint16), offset_dtype=np.uint8)


def launch_total_past_uint64():
    launch_window(np.array([2**63, 2**63], np.uint64), offset_dtype=np.uint64)


def launch_total_past_int64():
    launch_window(np.array([2**63 - 1, 1], np.uint64), offset_dtype=np.int64)


def launch_negative_offset():
    launch_window(np.array([3, 2], np.int64), start=-1)


def launch_negative_int8_offset():
    launch_window(np.array([3, 2], np.int64), start=-3, start_dtype=np.int8)


def launch_into_negative_destination_offset():
    threads = 32
    values = np.arange(threads * 2, dtype=np.int16)
    lengths = padded_runs([3, 2], threads * 2, np.uint32)
    destination = np.zeros(16, np.int16)
    into_kernel(2, 3, np.uint32)[1, threads](
        values, lengths, destination, np.array([-1], np.int64), np.zeros(2 * threads, np.uint64)
    )


def launch_into(destination_size, relative_size, start=0):
    threads = 32
    values = np.arange(threads * 2, dtype=np.int32)
    lengths = padded_runs([3, 2], threads * 2, np.uint64)
    destination = cuda.to_device(np.full(destination_size, -1, np.int32))
    relative = cuda.device_array(relative_size, np.uint32)
    into_relative_kernel(np.uint32)[1, threads](
        values, lengths, destination, relative, np.uint64(start), np.zeros(threads, np.uint64)
    )


def launch_into_a_destination_too_small():
    launch_into(4, 64)


def launch_into_relative_offsets_too_small():
    launch_into(64, 4)


def launch_into_a_destination_offset_leaving_too_little_room():
    launch_into(8, 64, start=4)


def launch_into_a_destination_offset_past_2_63():
    launch_into(64, 64, start=2**64 - 2)


@pytest.mark.parametrize(
    "launch",
    [
        launch_negative_length,
        launch_interior_zero,
        launch_interior_zero_across_threads,
        launch_total_past_uint32,
        launch_length_past_uint32,
        launch_total_past_int32,
        launch_total_past_uint8,
        launch_total_past_uint64,
        launch_total_past_int64,
        launch_negative_offset,
        launch_negative_int8_offset,
        launch_into_negative_destination_offset,
        launch_into_a_destination_too_small,
        launch_into_relative_offsets_too_small,
        launch_into_a_destination_offset_leaving_too_little_room,
        launch_into_a_destination_offset_past_2_63,
    ],
    ids=lambda launch: launch.__name__.removeprefix("launch_"),
)
def test_bad_runs_offsets_and_arrays_trap(traps_in_child, launch):
    traps_in_child(launch)


def test_a_total_of_the_offset_dtypes_max_decodes():
    threads = 32
    total = 2**32 - 1  # no headroom needed: nothing past the total is counted in the offset dtype
    values = np.zeros(threads, np.int32)
    values[:2] = [5, 6]
    lengths = padded_runs([total - 1, 1], threads, np.uint64)
    decoded, relative, totals = run_windows(values, lengths, [total - 2], threads, 1, 3)
    np.testing.assert_array_equal(decoded[0][:3], [5, 6, 0])
    np.testing.assert_array_equal(decoded[0][3:], 0)
    np.testing.assert_array_equal(relative[0][:3], [total - 2, 0, 2**32 - 1])
    np.testing.assert_array_equal(totals, total)
