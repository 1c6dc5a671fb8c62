"""Radix sorts and ranks, merge sorts and top-k in Python kernels, launched and compared with
NumPy: stable permutations of keys and values (np.argsort(kind="stable")), partial bit ranges,
descending and striped outputs, float keys with -0.0, +0.0, infinities and NaNs, comparators
written in Python, partial tiles, warps and logical warps, ranks and digit prefixes against a
stable argsort, and top-k against np.partition for every k of a tile, ties included. Runtime
controls outside their range trap."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

THREADS = 64
ITEMS = 3
TILE = THREADS * ITEMS
RNG = np.random.default_rng(20261202)

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]


def ordered_bits(keys):
    """The unsigned bits CUB's radix traits sort keys by: sign-flipped integers, floats in their
    total order with -0.0 taken as +0.0 (as cub::BlockRadixSort's digit extractor does)."""
    keys = np.asarray(keys)
    unsigned = np.dtype(f"uint{keys.dtype.itemsize * 8}")
    bits = keys.view(unsigned).copy()
    sign = unsigned.type(1) << unsigned.type(keys.dtype.itemsize * 8 - 1)
    if keys.dtype.kind == "i":
        return bits ^ sign
    if keys.dtype.kind == "f":
        bits[keys == 0] = 0  # -0.0 sorts as +0.0
        return np.where(bits & sign, ~bits, bits ^ sign).astype(unsigned)
    return bits


def digits_of(keys, begin, end):
    bits = ordered_bits(keys).astype(np.uint64)
    return (bits >> np.uint64(begin)) & np.uint64((1 << (end - begin)) - 1)


def stable_order(keys, begin=0, end=None, descending=False):
    end = keys.dtype.itemsize * 8 if end is None else end
    digits = digits_of(keys, begin, end).astype(np.float64)  # exact up to 2^53; wider ranges by lexsort below
    if end - begin > 52:
        high = digits_of(keys, begin + 32, end).astype(np.float64)
        low = digits_of(keys, begin, begin + 32).astype(np.float64)
        return np.lexsort((low, high)) if not descending else np.lexsort((-low, -high))
    return np.argsort(-digits if descending else digits, kind="stable")


def tile_keys(dtype, count=TILE, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        keys = rng.normal(scale=100, size=count).astype(dtype)
        keys[:8] = np.array([np.inf, -np.inf, -0.0, 0.0, -1.5, 1.5, 0.0, -0.0], dtype=dtype)
        keys[8:40:8] = keys[40]  # ties
        return keys
    info = np.iinfo(dtype)
    keys = rng.integers(info.min, info.max, size=count, endpoint=True, dtype=dtype)
    keys[::7] = keys[3]  # ties
    keys[:3] = [info.min, info.max, 0]
    return keys


def radix_pairs_kernel(descending, begin, end, striped):
    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out, keys_kept):
        block = coop.this_block()
        keys = coop.ThreadData(ITEMS)
        values = coop.ThreadData(ITEMS)
        coop.load(block, keys_in, keys)
        coop.load(block, values_in, values)
        sorted_keys, sorted_values = coop.radix_sort_pairs(
            block, keys, values, begin_bit=begin, end_bit=end, descending=descending, blocked_to_striped=striped
        )
        coop.store(block, keys_out, sorted_keys, algorithm="striped" if striped else "direct")
        coop.store(block, values_out, sorted_values, algorithm="striped" if striped else "direct")
        coop.store(block, keys_kept, keys)

    return kernel


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("descending", [False, True])
def test_radix_sort_pairs_is_a_stable_permutation(dtype, descending):
    keys = tile_keys(dtype, seed=1)
    values = np.arange(TILE, dtype=np.float64) * 1.5
    out_keys, out_values, kept = np.zeros_like(keys), np.zeros_like(values), np.zeros_like(keys)
    radix_pairs_kernel(descending, None, None, False)[1, THREADS](keys, values, out_keys, out_values, kept)
    order = stable_order(keys, descending=descending)
    np.testing.assert_array_equal(out_values, values[order])
    np.testing.assert_array_equal(out_keys.view(f"u{keys.itemsize}"), keys[order].view(f"u{keys.itemsize}"))
    np.testing.assert_array_equal(kept.view(f"u{keys.itemsize}"), keys.view(f"u{keys.itemsize}"))


@pytest.mark.parametrize(("dtype", "begin", "end"), [(np.int32, 2, 6), (np.uint64, 30, 37), (np.float32, 23, 32)])
@pytest.mark.parametrize("striped", [False, True])
def test_radix_sort_partial_bits_and_striped_output(dtype, begin, end, striped):
    keys = tile_keys(dtype, seed=2)
    values = np.arange(TILE, dtype=np.int64)
    out_keys, out_values, kept = np.zeros_like(keys), np.zeros_like(values), np.zeros_like(keys)
    radix_pairs_kernel(True, begin, end, striped)[1, THREADS](keys, values, out_keys, out_values, kept)
    order = stable_order(keys, begin, end, descending=True)
    np.testing.assert_array_equal(out_values, values[order])
    np.testing.assert_array_equal(out_keys, keys[order])


@cuda.jit
def radix_keys_runtime_bits(keys_in, keys_out, begin, end):
    block = coop.this_block()
    keys = coop.ThreadData(ITEMS, dtype=keys_in.dtype)
    coop.load(block, keys_in, keys)
    coop.store(block, keys_out, coop.radix_sort_keys(block, keys, begin_bit=begin, end_bit=end))


def test_radix_sort_keys_with_runtime_bits_and_a_2d_block():
    keys = tile_keys(np.int32, seed=3)
    out = np.zeros_like(keys)
    radix_keys_runtime_bits[1, (16, 4)](keys, out, 4, 13)
    np.testing.assert_array_equal(out, keys[stable_order(keys, 4, 13)])


@cuda.jit
def scalar_sort_and_rank(keys_in, values_in, keys_out, values_out, ranks_out):
    block = coop.this_block()
    t = cuda.threadIdx.x
    key, value = coop.radix_sort_pairs(block, keys_in[t], values_in[t], begin_bit=4, end_bit=9)
    keys_out[t] = key
    values_out[t] = value
    ranks_out[t] = coop.radix_rank_keys(block, keys_in[t], begin_bit=4, radix_bits=5)


def test_one_key_per_thread_sorts_and_ranks():
    keys = RNG.integers(0, 4096, THREADS).astype(np.uint32)
    values = np.arange(THREADS, dtype=np.int32)
    keys_out, values_out, ranks = np.zeros_like(keys), np.zeros_like(values), np.zeros_like(values)
    scalar_sort_and_rank[1, THREADS](keys, values, keys_out, values_out, ranks)
    order = np.argsort((keys >> 4) & 31, kind="stable")
    np.testing.assert_array_equal(values_out, order)
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(ranks[order], np.arange(THREADS))


def rank_kernel(dtype, begin, bits, descending, algorithm):
    digits_per_thread = max(1, -(-(1 << bits) // THREADS))

    @cuda.jit
    def kernel(keys_in, ranks_out, prefix_out):
        block = coop.this_block()
        keys = coop.ThreadData(ITEMS, dtype=dtype)
        coop.load(block, keys_in, keys)
        prefix = coop.ThreadData(digits_per_thread, np.int32)
        ranks = coop.radix_rank_keys(
            block,
            keys,
            begin_bit=begin,
            radix_bits=bits,
            descending=descending,
            exclusive_digit_prefix=prefix,
            algorithm=algorithm,
        )
        coop.store(block, ranks_out, ranks)
        coop.store(block, prefix_out, prefix)

    return kernel, digits_per_thread


@pytest.mark.parametrize("algorithm", ["memoize", "basic", "match"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize(("dtype", "begin", "bits"), [(np.uint32, 0, 4), (np.int64, 56, 8), (np.float32, 20, 7)])
def test_radix_rank_is_a_stable_argsort_by_digit(algorithm, descending, dtype, begin, bits):
    keys = tile_keys(dtype, seed=4)
    kernel, per_thread = rank_kernel(dtype, begin, bits, descending, algorithm)
    ranks = np.zeros(TILE, np.int32)
    prefix = np.zeros(THREADS * per_thread, np.int32)
    kernel[1, THREADS](keys, ranks, prefix)
    order = stable_order(keys, begin, begin + bits, descending)
    np.testing.assert_array_equal(ranks[order], np.arange(TILE))
    counts = np.bincount(digits_of(keys, begin, begin + bits).astype(np.int64), minlength=1 << bits)
    expected = (TILE - np.cumsum(counts)) if descending else np.concatenate(([0], np.cumsum(counts)[:-1]))
    np.testing.assert_array_equal(prefix[: 1 << bits], expected)


def by_magnitude(a, b):
    return abs(a) < abs(b)


def merge_kernel(group_kind, width, pairs, descending, compare, partial):
    """Each group (a block, a warp or a logical warp of `width` lanes) sorts its own tile."""

    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out, count, last):
        if group_kind == "block":
            group = coop.this_block()
        elif group_kind == "warp":
            group = coop.this_warp()
        else:
            group = coop.this_warp().group_by(width)
        keys = coop.ThreadData(ITEMS)
        values = coop.ThreadData(ITEMS)
        coop.load(group, keys_in, keys)
        coop.load(group, values_in, values)
        if pairs:
            if partial:
                k, v = coop.merge_sort_pairs(
                    group,
                    keys,
                    values,
                    compare_op=compare,
                    descending=descending,
                    valid_items=count,
                    oob_default=last,
                )
            else:
                k, v = coop.merge_sort_pairs(group, keys, values, compare_op=compare, descending=descending)
            coop.store(group, values_out, v)
        else:
            if partial:
                k = coop.merge_sort_keys(
                    group, keys, compare_op=compare, descending=descending, valid_items=count, oob_default=last
                )
            else:
                k = coop.merge_sort_keys(group, keys, compare_op=compare, descending=descending)
        coop.store(group, keys_out, k)

    return kernel


@pytest.mark.parametrize(
    ("group_kind", "width"), [("block", THREADS), ("warp", 32), ("logical", 16), ("logical", 4), ("logical", 1)]
)
@pytest.mark.parametrize("pairs", [False, True])
@pytest.mark.parametrize("partial", [False, True])
def test_merge_sort_each_group_sorts_its_tile(group_kind, width, pairs, partial):
    keys = RNG.integers(-50, 50, TILE).astype(np.int32)
    values = np.arange(TILE, dtype=np.float32)
    count = width * ITEMS - 5 if partial and width * ITEMS > 5 else width * ITEMS
    out_keys, out_values = np.zeros_like(keys), np.zeros_like(values)
    last = np.iinfo(np.int32).max  # the sentinel sorts after every valid key
    merge_kernel(group_kind, width, pairs, False, "less", partial)[1, THREADS](
        keys, values, out_keys, out_values, count, last
    )
    for start in range(0, TILE, width * ITEMS):
        tile = slice(start, start + count)
        np.testing.assert_array_equal(out_keys[tile], np.sort(keys[tile]))
        if pairs:  # ties may come out in any order: each value is still with its key
            assert sorted(zip(out_keys[tile], out_values[tile])) == sorted(zip(keys[tile], values[tile]))


@pytest.mark.parametrize("compare", [by_magnitude, lambda a, b: abs(a) < abs(b)], ids=["function", "lambda"])
@pytest.mark.parametrize("descending", [False, True])
def test_merge_sort_with_a_python_comparator(compare, descending):
    keys = RNG.normal(size=TILE).astype(np.float64)
    values = np.arange(TILE, dtype=np.float32)
    out_keys, out_values = np.zeros_like(keys), np.zeros_like(values)
    merge_kernel("block", THREADS, True, descending, compare, False)[1, THREADS](
        keys, values, out_keys, out_values, TILE, np.inf
    )
    expected = keys[np.argsort(np.abs(keys))]
    np.testing.assert_array_equal(out_keys, expected[::-1] if descending else expected)
    np.testing.assert_array_equal(keys[out_values.astype(np.int64)], out_keys)


def test_merge_sort_by_a_key_field_of_a_nested_comparator():
    def make():
        def by_low_byte(a, b):  # a nested function calling a helper
            return low(a) < low(b)

        def low(x):
            return x & 255

        @cuda.jit
        def kernel(keys_in, keys_out):
            warp = coop.this_warp()
            keys = coop.ThreadData(2)
            coop.load(warp, keys_in, keys)
            coop.store(warp, keys_out, coop.merge_sort_keys(warp, keys, compare_op=by_low_byte))

        return kernel

    keys = RNG.permutation(128 * 256)[:128].astype(np.int64)
    keys = keys - (keys & 255) + np.arange(128)  # distinct low bytes: one order
    keys = RNG.permutation(keys)
    out = np.zeros_like(keys)
    make()[1, 64](keys, out)
    for start in (0, 64):
        tile = keys[start : start + 64]
        np.testing.assert_array_equal(out[start : start + 64], tile[np.argsort(tile & 255)])


def topk_kernel(largest, pairs):
    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out, k, count):
        block = coop.this_block()
        keys = coop.ThreadData(ITEMS)
        values = coop.ThreadData(ITEMS)
        coop.load(block, keys_in, keys)
        coop.load(block, values_in, values)
        if pairs:
            if largest:
                chosen, moved = coop.topk_max_pairs(block, keys, values, k=k, valid_items=count)
            else:
                chosen, moved = coop.topk_min_pairs(block, keys, values, k=k, valid_items=count)
            coop.store(block, values_out, moved)
        else:
            if largest:
                chosen = coop.topk_max_keys(block, keys, k=k, valid_items=count)
            else:
                chosen = coop.topk_min_keys(block, keys, k=k, valid_items=count)
        coop.store(block, keys_out, chosen)

    return kernel


@pytest.mark.parametrize("largest", [False, True])
@pytest.mark.parametrize("pairs", [False, True])
@pytest.mark.parametrize("count", [TILE, TILE - 37])
def test_topk_for_every_k_of_the_tile(largest, pairs, count):
    keys = RNG.integers(-20, 20, TILE).astype(np.float32)  # many ties
    values = np.arange(TILE, dtype=np.int64)
    kernel = topk_kernel(largest, pairs)
    for k in range(1, TILE + 1):
        out_keys, out_values = np.zeros_like(keys), np.full_like(values, -1)
        kernel[1, THREADS](keys, values, out_keys, out_values, k, count)
        n = min(k, count)
        valid = keys[:count]
        expected = np.partition(valid, count - n)[count - n :] if largest else np.partition(valid, n - 1)[:n]
        np.testing.assert_array_equal(np.sort(out_keys[:n]), np.sort(expected), err_msg=f"k={k}")
        if pairs:
            chosen = out_values[:n]
            assert len(set(chosen)) == n and chosen.max() < count
            np.testing.assert_array_equal(keys[chosen], out_keys[:n])


def selects_largest(pairs, bits):
    """Which selection topk_bits_kernel makes: both, across its variants."""
    return pairs != (bits == "static")


def topk_bits_kernel(pairs, valid, bits):
    """k passed positionally (the seed's variant spelling), a bit range given as `bits`: "runtime"
    (kernel arguments), "static" (constants 4..12) or "begin" (begin_bit 4 alone); `valid`: whether
    valid_items is given. The largest or the smallest keys as selects_largest says."""

    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out, k, count, begin, end):
        block = coop.this_block()
        keys = coop.ThreadData(ITEMS)
        values = coop.ThreadData(ITEMS)
        coop.load(block, keys_in, keys)
        coop.load(block, values_in, values)
        n = count if valid else TILE
        if pairs:
            if bits == "runtime":
                chosen, moved = coop.topk_max_pairs(block, keys, values, k, valid_items=n, begin_bit=begin, end_bit=end)
            elif bits == "static":
                chosen, moved = coop.topk_min_pairs(block, keys, values, k, begin_bit=4, end_bit=12)
            else:
                chosen, moved = coop.topk_max_pairs(block, keys, values, k, begin_bit=4)
            coop.store(block, values_out, moved)
        else:
            if bits == "runtime":
                chosen = coop.topk_min_keys(block, keys, k, valid_items=n, begin_bit=begin, end_bit=end)
            elif bits == "static":
                chosen = coop.topk_max_keys(block, keys, k, begin_bit=4, end_bit=12)
            else:
                chosen = coop.topk_min_keys(block, keys, k, begin_bit=4)
        coop.store(block, keys_out, chosen)

    return kernel


@pytest.mark.parametrize(
    ("pairs", "valid", "bits"),
    [
        (False, True, "runtime"),
        (True, True, "runtime"),
        (False, False, "static"),
        (True, False, "static"),
        (False, False, "begin"),
        (True, False, "begin"),
    ],
)
@pytest.mark.parametrize("dtype", [np.int32, np.uint64])
def test_topk_orders_keys_by_their_bit_range(pairs, valid, bits, dtype):
    # Keys compared on bits [begin, end) alone: the selected keys' digits are the k extreme
    # digits of the valid keys (ties by digit are unspecified), the keys themselves whole.
    largest = selects_largest(pairs, bits)
    begin, end = 4, 12 if bits != "begin" else np.dtype(dtype).itemsize * 8
    count = TILE - 29 if valid else TILE
    keys = RNG.integers(0, 1 << 14, TILE).astype(dtype)
    if np.dtype(dtype).kind == "i":
        keys[::7] = -keys[::7]  # negative keys: a signed key's digits are of its flipped sign bit
    values = np.arange(TILE, dtype=np.int64)
    kernel = topk_bits_kernel(pairs, valid, bits)

    def digits(found):
        width = found.dtype.itemsize * 8
        unsigned = found.view(f"uint{width}").astype(np.uint64)
        if found.dtype.kind == "i":
            unsigned ^= np.uint64(1 << (width - 1))
        return (unsigned >> np.uint64(begin)) & np.uint64((1 << (end - begin)) - 1)

    for k in (1, 11, count // 2, count):
        out_keys, out_values = np.zeros_like(keys), np.full_like(values, -1)
        kernel[1, THREADS](keys, values, out_keys, out_values, k, count, begin, end)
        ordered = np.sort(digits(keys[:count]))
        expected = ordered[-k:] if largest else ordered[:k]
        np.testing.assert_array_equal(np.sort(digits(out_keys[:k])), expected, err_msg=f"k={k}")
        assert set(out_keys[:k].tolist()) <= set(keys[:count].tolist())
        if pairs:
            chosen = out_values[:k]
            assert len(set(chosen.tolist())) == k and chosen.max() < count
            np.testing.assert_array_equal(keys[chosen], out_keys[:k])


@cuda.jit
def topk_nothing(keys_in, keys_out, k, count):
    block = coop.this_block()
    keys = coop.ThreadData(ITEMS)
    coop.load(block, keys_in, keys)
    chosen = coop.topk_min_keys(block, keys, k=k, valid_items=count)
    coop.store(block, keys_out, chosen, valid_items=min(k, count))


@pytest.mark.parametrize(("k", "count"), [(0, TILE), (0, 0), (17, 0)])
def test_an_empty_selection_runs_without_calling_cub(k, count):
    out = np.full(TILE, -1, np.int32)
    topk_nothing[1, THREADS](np.arange(TILE, dtype=np.int32), out, k, count)
    cuda.synchronize()
    np.testing.assert_array_equal(out, -1)


def launch_radix_sort_with_bad_bits():
    radix_keys_runtime_bits[1, THREADS](np.arange(TILE, dtype=np.int32), np.zeros(TILE, np.int32), 8, 4)


def launch_radix_sort_with_bits_past_the_key():
    radix_keys_runtime_bits[1, THREADS](np.arange(TILE, dtype=np.int32), np.zeros(TILE, np.int32), 0, 33)


def launch_radix_sort_with_bits_that_wrap():
    radix_keys_runtime_bits[1, THREADS](np.arange(TILE, dtype=np.int32), np.zeros(TILE, np.int32), 2**32, 2**32 + 8)


def launch_topk_with_k_past_the_tile():
    keys = np.arange(TILE, dtype=np.float32)
    topk_kernel(False, False)[1, THREADS](
        keys, np.zeros(TILE, np.int64), keys, np.zeros(TILE, np.int64), TILE + 1, TILE
    )


def launch_topk_with_bits_past_the_key():
    keys = np.arange(TILE, dtype=np.int32)
    topk_bits_kernel(False, True, "runtime")[1, THREADS](
        keys, np.zeros(TILE, np.int64), keys, np.zeros(TILE, np.int64), 3, TILE, 0, 33
    )


def launch_merge_sort_with_too_many_valid_items():
    keys = np.arange(TILE, dtype=np.int32)
    merge_kernel("block", THREADS, False, False, "less", True)[1, THREADS](
        keys, np.zeros(TILE, np.float32), keys, np.zeros(TILE, np.float32), TILE + 1, np.iinfo(np.int32).max
    )


@pytest.mark.parametrize(
    "launch",
    [
        launch_radix_sort_with_bad_bits,
        launch_radix_sort_with_bits_past_the_key,
        launch_radix_sort_with_bits_that_wrap,
        launch_topk_with_k_past_the_tile,
        launch_topk_with_bits_past_the_key,
        launch_merge_sort_with_too_many_valid_items,
    ],
)
def test_runtime_controls_outside_their_range_trap(traps_in_child, launch):
    traps_in_child(launch)
