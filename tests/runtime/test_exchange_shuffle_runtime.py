"""Block and warp exchanges and block shuffles in Python kernels, launched and compared with
NumPy: every conversion (scatters with random permutations, guarded and flagged scatters with
invalid ranks), every shuffle, the input left unchanged."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

DTYPES = [np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
ITEMS = [1, 3, 4]
SHAPES = [(128, 1, 1), (32, 4, 1), (16, 2, 2)]
BLOCKS = 3


def tile_values(count, dtype, seed=11):
    return np.random.default_rng(seed).integers(-100, 100, size=count).astype(dtype)


@cuda.jit(device=True)
def rank():
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


def blocked(tile, threads, items):
    """items[t, i] of a blocked arrangement of `tile`."""
    return tile.reshape(threads, items)


def striped(tile, threads, items):
    return tile.reshape(items, threads).T


def warp_striped(tile, threads, items, width=32):
    """Each warp's segment of width x items, striped within the warp."""
    warps = tile.reshape(threads // width, items, width)
    return warps.transpose(0, 2, 1).reshape(threads, items)


def exchange_kernel(mode, items_per_thread, dtype, time_slicing=False, flag_dtype=np.bool_):
    """A kernel exchanging each block's tile (read blocked) with `mode`; the exchange call
    is chosen here, in Python, so each kernel holds exactly one. Flags are held as
    `flag_dtype` (bool, or an integer taken as it is: nonzero means valid)."""
    n = items_per_thread
    as_bool = flag_dtype is np.bool_

    @cuda.jit(device=True)
    def held(source, ranks_in, flags_in, items, ranks, flags, base, t):
        for i in range(n):
            items[i] = source[base + t * n + i]
            ranks[i] = ranks_in[base + t * n + i]
            flags[i] = (flags_in[base + t * n + i] != 0) if as_bool else flags_in[base + t * n + i]

    @cuda.jit(device=True)
    def written(out, items, result_out, input_out, base, t):
        for i in range(n):
            result_out[base + t * n + i] = out[i]
            input_out[base + t * n + i] = items[i]

    if mode == "scatter_to_striped_flagged":

        @cuda.jit
        def kernel(source, ranks_in, flags_in, result_out, input_out):
            block = coop.this_block()
            base, t = cuda.blockIdx.x * n * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z, rank()
            items, ranks, flags = (
                coop.ThreadData(n, dtype),
                coop.ThreadData(n, np.int32),
                coop.ThreadData(n, flag_dtype),
            )
            held(source, ranks_in, flags_in, items, ranks, flags, base, t)
            out = coop.exchange(block, items, mode=mode, ranks=ranks, valid_flags=flags)
            written(out, items, result_out, input_out, base, t)

    elif mode.startswith("scatter"):

        @cuda.jit
        def kernel(source, ranks_in, flags_in, result_out, input_out):
            block = coop.this_block()
            base, t = cuda.blockIdx.x * n * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z, rank()
            items, ranks, flags = coop.ThreadData(n, dtype), coop.ThreadData(n, np.int32), coop.ThreadData(n, np.bool_)
            held(source, ranks_in, flags_in, items, ranks, flags, base, t)
            out = coop.exchange(block, items, mode=mode, ranks=ranks, warp_time_slicing=time_slicing)
            written(out, items, result_out, input_out, base, t)

    else:

        @cuda.jit
        def kernel(source, ranks_in, flags_in, result_out, input_out):
            block = coop.this_block()
            base, t = cuda.blockIdx.x * n * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z, rank()
            items, ranks, flags = coop.ThreadData(n, dtype), coop.ThreadData(n, np.int32), coop.ThreadData(n, np.bool_)
            held(source, ranks_in, flags_in, items, ranks, flags, base, t)
            out = coop.exchange(block, items, mode=mode, warp_time_slicing=time_slicing)
            written(out, items, result_out, input_out, base, t)

    return kernel


def expected_exchange(mode, held, ranks, flags, threads, items):
    """What each thread holds after the exchange (None where unspecified), from the blocked
    arrangement `held` that each thread passed in."""
    if mode == "blocked_to_striped":
        return striped(held.reshape(-1), threads, items)
    if mode == "striped_to_blocked":  # held is read as striped: position i*threads + t
        tile = np.empty(threads * items, held.dtype)
        tile[(np.arange(items)[None, :] * threads + np.arange(threads)[:, None]).reshape(-1)] = held.reshape(-1)
        return blocked(tile, threads, items)
    if mode == "blocked_to_warp_striped":
        return warp_striped(held.reshape(-1), threads, items)
    if mode == "warp_striped_to_blocked":
        tile = np.empty(threads * items, held.dtype)
        lanes = np.arange(threads) % 32
        warp = np.arange(threads) // 32
        positions = warp[:, None] * 32 * items + np.arange(items)[None, :] * 32 + lanes[:, None]
        tile[positions.reshape(-1)] = held.reshape(-1)
        return blocked(tile, threads, items)
    tile = np.zeros(threads * items, held.dtype)
    written = np.zeros(threads * items, bool)
    for value, position, valid in zip(held.reshape(-1), ranks.reshape(-1), flags.reshape(-1)):
        if position < 0 or (mode == "scatter_to_striped_flagged" and not valid):
            continue
        tile[position], written[position] = value, True
    arrange = blocked if mode == "scatter_to_blocked" else striped
    return arrange(tile, threads, items), arrange(written, threads, items)


BLOCK_MODES = [
    "striped_to_blocked",
    "blocked_to_striped",
    "warp_striped_to_blocked",
    "blocked_to_warp_striped",
    "scatter_to_blocked",
    "scatter_to_striped",
    "scatter_to_striped_guarded",
    "scatter_to_striped_flagged",
]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", BLOCK_MODES)
def test_block_exchange(mode, dtype, items, shape):
    threads = shape[0] * shape[1] * shape[2]
    rng = np.random.default_rng(3)
    source = tile_values(BLOCKS * threads * items, dtype)
    ranks = np.concatenate([rng.permutation(threads * items) for _ in range(BLOCKS)]).astype(np.int32)
    flags = rng.integers(0, 2, size=ranks.size).astype(np.int8)
    if mode == "scatter_to_striped_guarded":
        ranks[rng.random(ranks.size) < 0.25] = -1  # skipped items
    if mode == "scatter_to_striped_flagged":
        ranks[flags == 0] = 1 << 30  # never read: their flag is off
    result = np.zeros_like(source)
    kept = np.zeros_like(source)
    exchange_kernel(mode, items, dtype, time_slicing=(items == 3))[BLOCKS, shape](source, ranks, flags, result, kept)
    cuda.synchronize()
    np.testing.assert_array_equal(kept, source)  # a fresh payload: the input is unchanged
    per_block = threads * items
    for b in range(BLOCKS):
        held = blocked(source[b * per_block : (b + 1) * per_block], threads, items)
        got = blocked(result[b * per_block : (b + 1) * per_block], threads, items)
        block_ranks = blocked(ranks[b * per_block : (b + 1) * per_block], threads, items)
        block_flags = blocked(flags[b * per_block : (b + 1) * per_block], threads, items)
        expected = expected_exchange(mode, held, block_ranks, block_flags, threads, items)
        if isinstance(expected, tuple):
            expected, written = expected
            np.testing.assert_array_equal(got[written], expected[written])
        else:
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("flag_dtype", [np.int32, np.uint8, np.int64], ids=lambda d: np.dtype(d).name)
def test_integer_valid_flags_count_as_set_when_nonzero(flag_dtype):
    threads, items = 128, 2
    rng = np.random.default_rng(5)
    source = np.arange(BLOCKS * threads * items, dtype=np.int32)
    ranks = np.concatenate([rng.permutation(threads * items) for _ in range(BLOCKS)]).astype(np.int32)
    flags = (rng.integers(0, 2, size=ranks.size) * rng.integers(1, 100, size=ranks.size)).astype(flag_dtype)
    ranks[flags == 0] = 1 << 30  # never read: their flag is off
    result = np.full_like(source, -1)
    kernel = exchange_kernel("scatter_to_striped_flagged", items, np.int32, flag_dtype=flag_dtype)
    kernel[BLOCKS, threads](source, ranks, flags, result, np.zeros_like(source))
    cuda.synchronize()
    per_block = threads * items
    for b in range(BLOCKS):
        part = slice(b * per_block, (b + 1) * per_block)
        held = blocked(source[part], threads, items)
        expected, written = expected_exchange(
            "scatter_to_striped_flagged",
            held,
            blocked(ranks[part], threads, items),
            blocked(flags[part], threads, items),
            threads,
            items,
        )
        np.testing.assert_array_equal(blocked(result[part], threads, items)[written], expected[written])


def warp_exchange_kernel(mode, width, items_per_thread, dtype):
    n = items_per_thread

    @cuda.jit(device=True)
    def held(source, ranks_in, items, ranks, t):
        for i in range(n):
            items[i] = source[t * n + i]
            ranks[i] = ranks_in[t * n + i]

    if mode == "scatter_to_striped":

        @cuda.jit
        def kernel(source, ranks_in, result_out):
            warp = coop.this_warp().group_by(width)
            t = rank()
            items, ranks = coop.ThreadData(n, dtype), coop.ThreadData(n, np.int32)
            held(source, ranks_in, items, ranks, t)
            out = coop.exchange(warp, items, mode=mode, ranks=ranks)
            for i in range(n):
                result_out[t * n + i] = out[i]

    else:

        @cuda.jit
        def kernel(source, ranks_in, result_out):
            warp = coop.this_warp().group_by(width)
            t = rank()
            items, ranks = coop.ThreadData(n, dtype), coop.ThreadData(n, np.int32)
            held(source, ranks_in, items, ranks, t)
            out = coop.exchange(warp, items, mode=mode)
            for i in range(n):
                result_out[t * n + i] = out[i]

    return kernel


@pytest.mark.parametrize("width", [8, 16, 32])
@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.float16], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", ["striped_to_blocked", "blocked_to_striped", "scatter_to_striped"])
def test_warp_exchange(mode, dtype, items, width):
    threads = 128
    rng = np.random.default_rng(5)
    source = tile_values(threads * items, dtype)
    ranks = np.concatenate([rng.permutation(width * items) for _ in range(threads // width)]).astype(np.int32)
    result = np.zeros_like(source)
    warp_exchange_kernel(mode, width, items, dtype)[1, threads](source, ranks, result)
    cuda.synchronize()
    segment = width * items
    for g in range(threads // width):
        held = blocked(source[g * segment : (g + 1) * segment], width, items)
        got = blocked(result[g * segment : (g + 1) * segment], width, items)
        group_ranks = blocked(ranks[g * segment : (g + 1) * segment], width, items)
        expected = expected_exchange(mode, held, group_ranks, np.ones_like(group_ranks), width, items)
        np.testing.assert_array_equal(got, expected[0] if isinstance(expected, tuple) else expected)


def launch_scatter_past_the_tile():
    threads, items = 128, 2
    source = tile_values(threads * items, np.int32)
    ranks = np.arange(threads * items, dtype=np.int32)
    ranks[17] = threads * items  # one past the tile
    kernel = exchange_kernel("scatter_to_blocked", items, np.int32)
    kernel[1, threads](source, ranks, np.ones_like(ranks), np.zeros_like(source), np.zeros_like(source))


def test_scatter_rank_outside_the_tile_traps(traps_in_child):
    """A rank past the tile would write another resource's shared memory: the provider traps."""
    traps_in_child(launch_scatter_past_the_tile)


def shift_kernel(mode, items_per_thread, dtype):
    n = items_per_thread

    if mode == "up":

        @cuda.jit
        def kernel(source, result_out, edge_out):
            block = coop.this_block()
            t = rank()
            items = coop.ThreadData(n, dtype)
            edge = cuda.local.array(1, dtype)
            for i in range(n):
                items[i] = source[t * n + i]
            out = coop.shuffle(block, items, mode="up", block_suffix_output=edge)
            for i in range(n):
                result_out[t * n + i] = out[i]
            edge_out[t] = edge[0]

    else:

        @cuda.jit
        def kernel(source, result_out, edge_out):
            block = coop.this_block()
            t = rank()
            items = coop.ThreadData(n, dtype)
            edge = cuda.local.array(1, dtype)
            for i in range(n):
                items[i] = source[t * n + i]
            out = coop.shuffle(block, items, block_prefix_output=edge)  # "down" is the default
            for i in range(n):
                result_out[t * n + i] = out[i]
            edge_out[t] = edge[0]

    return kernel


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", ["up", "down"])
def test_block_shuffle_shifts_the_tile(mode, dtype, items, shape):
    threads = shape[0] * shape[1] * shape[2]
    source = tile_values(threads * items, dtype)
    result = np.zeros_like(source)
    edge = np.zeros(threads, dtype)
    shift_kernel(mode, items, dtype)[1, shape](source, result, edge)
    cuda.synchronize()
    expected = source.copy()  # the vacated end keeps the thread's own item
    if mode == "up":
        expected[1:] = source[:-1]
        np.testing.assert_array_equal(edge, np.full(threads, source[-1]))
    else:
        expected[:-1] = source[1:]
        np.testing.assert_array_equal(edge, np.full(threads, source[0]))
    np.testing.assert_array_equal(result, expected)


def move_kernel(mode):
    @cuda.jit
    def kernel(source, result_out, distance):
        block = coop.this_block()
        t = rank()
        result_out[t] = coop.shuffle(block, source[t], mode=mode, distance=distance)

    return kernel


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    ("mode", "distance"), [("offset", 1), ("offset", -5), ("offset", 300), ("rotate", 1), ("rotate", 37)]
)
def test_block_shuffle_moves_values(mode, distance, dtype, shape):
    threads = shape[0] * shape[1] * shape[2]
    source = tile_values(threads, dtype)
    result = np.zeros_like(source)
    move_kernel(mode)[1, shape](source, result, distance)
    cuda.synchronize()
    ranks = np.arange(threads)
    if mode == "rotate":
        expected = source[(ranks + distance) % threads]
    else:
        inside = (ranks + distance >= 0) & (ranks + distance < threads)
        expected = np.where(inside, source[np.clip(ranks + distance, 0, threads - 1)], source)
    np.testing.assert_array_equal(result, expected)


def launch_rotate_by_the_block_size():
    source = tile_values(128, np.int32)
    move_kernel("rotate")[1, 128](source, np.zeros_like(source), 128)


def test_rotate_distance_outside_the_block_traps(traps_in_child):
    traps_in_child(launch_rotate_by_the_block_size)


def launch_offset_beyond_an_int():
    source = tile_values(128, np.int32)
    move_kernel("offset")[1, 128](source, np.zeros_like(source), np.int64(1 << 40))  # CUB's int would wrap it to 0


def test_an_offset_distance_beyond_an_int_traps(traps_in_child):
    traps_in_child(launch_offset_beyond_an_int)


@cuda.jit
def rotate_twice_and_sum(source, rotated, totals):
    block = coop.this_block()
    t = rank()
    first = coop.shuffle(block, source[t], mode="rotate", distance=5)
    rotated[t] = coop.shuffle(block, first, mode="rotate", distance=9)  # a primitive's value, typed by its payload
    totals[t] = coop.sum(block, coop.shuffle(block, first, mode="rotate", distance=1))


def test_a_value_a_primitive_returned_is_the_next_ones_payload():
    source = tile_values(128, np.int32)
    rotated, totals = np.zeros_like(source), np.zeros_like(source)
    rotate_twice_and_sum[1, 128](source, rotated, totals)
    cuda.synchronize()
    np.testing.assert_array_equal(rotated, source[(np.arange(128) + 14) % 128])
    np.testing.assert_array_equal(totals, np.full(128, source.sum(dtype=np.int32)))
