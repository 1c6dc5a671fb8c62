"""NumPy structured dtypes (aligned records) as the element type of device arrays and of
ThreadData, compared with NumPy: loaded, exchanged, shuffled and stored whole; reduced and
scanned with Python operators over their fields (taken and returned as tuples) at one and
several items per thread; as radix sort and top-k values; as merge sort keys (a Python compare_op)
and values. The layouts cover records of 8, 12, 16 and 24 bytes aligned to 4 and 8."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

# name -> an aligned structured dtype; its first field is an integer, its second a float.
RECORDS = {
    "int32_float32": np.dtype([("key", np.int32), ("value", np.float32)], align=True),  # 8 bytes, align 4
    "int32_float32_float32": np.dtype(
        [("key", np.int32), ("value", np.float32), ("weight", np.float32)], align=True
    ),  # 12, align 4
    "int64_float32": np.dtype([("key", np.int64), ("value", np.float32)], align=True),  # 16 (4 of padding), align 8
    "int8_float64_int16": np.dtype(
        [("key", np.int8), ("value", np.float64), ("count", np.int16)], align=True
    ),  # 24, align 8
}
PAIR = np.dtype([("a", np.float32), ("b", np.float32)], align=True)  # the selective scan's (a, b)
TRIPLE = RECORDS["int32_float32_float32"]


def records(dtype, count, seed=5):
    """`count` records of `dtype` with distinct keys (a permutation) and random other fields."""
    rng = np.random.default_rng(seed)
    out = np.zeros(count, dtype)
    for index, name in enumerate(dtype.names):
        kind = dtype.fields[name][0]
        if index == 0:
            out[name] = rng.permutation(count) % np.iinfo(kind).max
        elif kind.kind == "f":
            out[name] = rng.standard_normal(count)
        else:
            out[name] = rng.integers(0, 100, count)
    return out


def move_kernel(items_per_thread):
    """Loads blocked records, adds one to each item's key in the kernel, exchanges them to a
    striped arrangement and stores them: out holds every tile transposed, keys plus one."""

    @cuda.jit
    def kernel(source, destination):
        block = coop.this_block()
        tile = cuda.blockIdx.x * cuda.blockDim.x * items_per_thread
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items, offset=tile)
        for i in range(items_per_thread):
            items[i].key = items[i].key + 1
        striped = coop.exchange(block, items, mode="blocked_to_striped")
        coop.store(block, destination, striped, offset=tile, algorithm="striped")

    return kernel


@pytest.mark.parametrize("items_per_thread", [1, 3])
@pytest.mark.parametrize("name", list(RECORDS))
def test_records_load_exchange_and_store_whole(name, items_per_thread):
    dtype, threads, blocks = RECORDS[name], 128, 2
    source = records(dtype, threads * items_per_thread * blocks)
    destination = np.zeros_like(source)
    move_kernel(items_per_thread)[blocks, threads](source, destination)
    expected = source.copy()
    expected["key"] += 1
    np.testing.assert_array_equal(destination, expected)  # striped store of a striped tile: the same order


def shuffle_kernel(mode):
    """Each tile of two items per thread shifted by one item (block shuffle up or down)."""

    @cuda.jit
    def kernel(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        shifted = coop.shuffle(block, items, mode=mode)
        coop.store(block, destination, shifted)

    return kernel


@pytest.mark.parametrize("mode", ["up", "down"])
def test_a_block_shuffle_shifts_records_by_one_item(mode):
    dtype = RECORDS["int8_float64_int16"]
    source = records(dtype, 256)
    destination = np.zeros_like(source)
    shuffle_kernel(mode)[1, 128](source, destination)
    if mode == "up":  # item i takes item i - 1; the first is undefined
        np.testing.assert_array_equal(destination[1:], source[:-1])
    else:
        np.testing.assert_array_equal(destination[:-1], source[1:])


def key_sum_and_max(a, b):
    """(sum of keys, the larger value, total weight) of two records' fields."""
    return a[0] + b[0], max(a[1], b[1]), a[2] + b[2]


def reduce_kernel(items_per_thread):
    @cuda.jit
    def kernel(source, out):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items)
        total, largest, weight = coop.reduce(block, items, binary_op=key_sum_and_max)
        if cuda.threadIdx.x == 0:
            out[0].key = total
            out[0].value = largest
            out[0].weight = weight

    return kernel


@pytest.mark.parametrize("items_per_thread", [1, 4])
def test_a_thread_data_of_records_reduces_with_a_python_operator(items_per_thread):
    source = records(TRIPLE, 128 * items_per_thread)
    out = np.zeros(1, TRIPLE)
    reduce_kernel(items_per_thread)[1, 128](source, out)
    assert out[0]["key"] == source["key"].sum()
    assert out[0]["value"] == source["value"].max()
    np.testing.assert_allclose(out[0]["weight"], source["weight"].sum(dtype=np.float64), rtol=1e-4, atol=1e-3)


def affine(left, right):
    """(a1, b1) then (a2, b2) is (a1 a2, a2 b1 + b2)."""
    return left[0] * right[0], right[0] * left[1] + right[1]


def scan_kernel(items_per_thread, mode):
    if mode == "inclusive":

        @cuda.jit
        def inclusive(source, destination):
            block = coop.this_block()
            items = coop.ThreadData(items_per_thread)
            coop.load(block, source, items)
            coop.store(block, destination, coop.inclusive_scan(block, items, scan_op=affine))

        return inclusive

    @cuda.jit
    def exclusive(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items)
        coop.store(block, destination, coop.exclusive_scan(block, items, scan_op=affine, initial_value=(1.0, 0.0)))

    return exclusive


def affine_reference(pairs, inclusive):
    """Sequential (prod a, h) with h_i = a_i h_(i-1) + b_i, in float64."""
    products, states = np.empty(len(pairs)), np.empty(len(pairs))
    product, state = 1.0, 0.0
    for i, (a, b) in enumerate(zip(pairs["a"].astype(np.float64), pairs["b"].astype(np.float64))):
        if not inclusive:
            products[i], states[i] = product, state
        product, state = product * a, a * state + b
        if inclusive:
            products[i], states[i] = product, state
    return products, states


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("items_per_thread", [1, 3])
def test_a_block_scan_of_pair_records_is_the_recurrence(items_per_thread, mode):
    count = 128 * items_per_thread
    rng = np.random.default_rng(13)
    source = np.zeros(count, PAIR)
    source["a"], source["b"] = rng.uniform(0.9, 1.0, count), rng.standard_normal(count)
    destination = np.zeros_like(source)
    scan_kernel(items_per_thread, mode)[1, 128](source, destination)
    products, states = affine_reference(source, inclusive=mode == "inclusive")
    np.testing.assert_allclose(destination["a"], products, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(destination["b"], states, rtol=1e-3, atol=1e-3)


@cuda.jit
def radix_sort_record_values(keys_in, values_in, keys_out, values_out):
    block = coop.this_block()
    keys, values = coop.ThreadData(4), coop.ThreadData(4)
    coop.load(block, keys_in, keys)
    coop.load(block, values_in, values)
    sorted_keys, sorted_values = coop.radix_sort_pairs(block, keys, values)
    coop.store(block, keys_out, sorted_keys)
    coop.store(block, values_out, sorted_values)


@pytest.mark.parametrize("name", ["int32_float32", "int8_float64_int16"])
def test_radix_sort_pairs_carries_record_values(name):
    dtype = RECORDS[name]
    keys = np.random.default_rng(3).integers(0, 50, 512).astype(np.uint32)
    values = records(dtype, 512)
    keys_out, values_out = np.zeros_like(keys), np.zeros_like(values)
    radix_sort_record_values[1, 128](keys, values, keys_out, values_out)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(values_out, values[order])


@cuda.jit
def topk_record_values(keys_in, values_in, keys_out, values_out, k):
    block = coop.this_block()
    keys, values = coop.ThreadData(4), coop.ThreadData(4)
    coop.load(block, keys_in, keys)
    coop.load(block, values_in, values)
    chosen, carried = coop.topk_min_pairs(block, keys, values, k=k)
    coop.store(block, keys_out, chosen)
    coop.store(block, values_out, carried)


@pytest.mark.parametrize("k", [1, 16, 512])
def test_topk_pairs_carry_record_values(k):
    dtype = RECORDS["int64_float32"]
    keys = np.random.default_rng(4).permutation(512).astype(np.uint32)  # distinct: one answer
    values = records(dtype, 512)
    values["key"] = keys  # each value names its key
    keys_out, values_out = np.zeros_like(keys), np.zeros_like(values)
    topk_record_values[1, 128](keys, values, keys_out, values_out, k)
    np.testing.assert_array_equal(np.sort(keys_out[:k]), np.arange(k))
    np.testing.assert_array_equal(values_out["key"][:k], keys_out[:k])
    by_key = {int(key): value for key, value in zip(keys, values["value"])}
    np.testing.assert_array_equal(values_out["value"][:k], [by_key[int(key)] for key in keys_out[:k]])


def by_key_then_value(a, b):
    return a[0] < b[0] or (a[0] == b[0] and a[1] < b[1])


@cuda.jit
def merge_sort_record_keys(keys_in, keys_out):
    block = coop.this_block()
    keys = coop.ThreadData(4)
    coop.load(block, keys_in, keys)
    coop.store(block, keys_out, coop.merge_sort_keys(block, keys, compare_op=by_key_then_value))


@cuda.jit
def merge_sort_record_pairs(keys_in, values_in, keys_out, values_out):
    block = coop.this_block()
    keys, values = coop.ThreadData(4), coop.ThreadData(4)
    coop.load(block, keys_in, keys)
    coop.load(block, values_in, values)
    sorted_keys, sorted_values = coop.merge_sort_pairs(block, keys, values, compare_op=by_key_then_value)
    coop.store(block, keys_out, sorted_keys)
    coop.store(block, values_out, sorted_values)


def test_merge_sort_orders_record_keys_by_a_python_comparator():
    keys = records(RECORDS["int32_float32"], 512)
    keys["key"] %= 16  # ties, broken by the value
    out = np.zeros_like(keys)
    merge_sort_record_keys[1, 128](keys, out)
    np.testing.assert_array_equal(out, np.sort(keys, order=["key", "value"]))


def test_merge_sort_pairs_moves_record_values_with_record_keys():
    keys = records(RECORDS["int32_float32"], 512)
    keys["key"] %= 16
    values = records(RECORDS["int8_float64_int16"], 512, seed=9)
    keys_out, values_out = np.zeros_like(keys), np.zeros_like(values)
    merge_sort_record_pairs[1, 128](keys, values, keys_out, values_out)
    order = np.argsort(keys, order=["key", "value"])  # keys distinct as (key, value): one order
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(values_out, values[order])


# -- one record per thread, written as a tuple: sorted and carried as tuples


@cuda.jit
def merge_sort_tuple_keys(keys_in, values_in, keys_out, values_out):
    """Sorts (key, value) pairs, one per thread, by key then value; the sorted pair comes back as a tuple."""
    t = cuda.threadIdx.x
    key, value = coop.merge_sort_keys(coop.this_block(), (keys_in[t], values_in[t]), compare_op=by_key_then_value)
    keys_out[t] = key
    values_out[t] = value


@cuda.jit
def merge_sort_tuple_pairs(keys_in, values_in, keys_out, values_out, ranks_out):
    """Tuple keys (key, value) carrying tuple values (the thread's rank, its value doubled)."""
    t = cuda.threadIdx.x
    keys, values = coop.merge_sort_pairs(
        coop.this_block(), (keys_in[t], values_in[t]), (t, values_in[t] * 2.0), compare_op=by_key_then_value
    )
    keys_out[t], values_out[t] = keys
    ranks_out[t] = values[0]


@cuda.jit
def radix_sort_tuple_values(keys_in, values_in, keys_out, ranks_out, values_out):
    """Integer keys carrying (rank, value) tuples, one per thread."""
    t = cuda.threadIdx.x
    key, carried = coop.radix_sort_pairs(coop.this_block(), keys_in[t], (np.int32(t), values_in[t]))
    keys_out[t] = key
    ranks_out[t], values_out[t] = carried


def tuple_sort_data(count=128):
    rng = np.random.default_rng(21)
    return rng.integers(0, 8, count).astype(np.int32), rng.standard_normal(count).astype(np.float32)


@cuda.jit
def warp_merge_sort_tuple_pairs(keys_in, values_in, keys_out, values_out, ranks_out):
    """Each warp sorts its 32 (key, value) pairs, one per lane, carrying (lane, value) tuples."""
    t = cuda.threadIdx.x
    keys, carried = coop.merge_sort_pairs(
        coop.this_warp(), (keys_in[t], values_in[t]), (t % 32, values_in[t]), compare_op=by_key_then_value
    )
    keys_out[t], values_out[t] = keys
    ranks_out[t] = carried[0]


def test_a_warp_merge_sort_orders_its_tuple_keys_one_per_lane():
    keys, values = tuple_sort_data()
    keys_out, values_out, ranks_out = np.zeros_like(keys), np.zeros_like(values), np.zeros(128, np.int64)
    warp_merge_sort_tuple_pairs[1, 128](keys, values, keys_out, values_out, ranks_out)
    for start in range(0, 128, 32):
        part = slice(start, start + 32)
        order = np.lexsort((values[part], keys[part]))
        np.testing.assert_array_equal(keys_out[part], keys[part][order])
        np.testing.assert_array_equal(values_out[part], values[part][order])
        np.testing.assert_array_equal(ranks_out[part], order)


def test_merge_sort_orders_tuple_keys_one_per_thread():
    keys, values = tuple_sort_data()
    keys_out, values_out = np.zeros_like(keys), np.zeros_like(values)
    merge_sort_tuple_keys[1, 128](keys, values, keys_out, values_out)
    order = np.lexsort((values, keys))
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(values_out, values[order])


def test_merge_sort_pairs_carries_tuple_values_with_tuple_keys():
    keys, values = tuple_sort_data()
    keys_out, values_out, ranks_out = np.zeros_like(keys), np.zeros_like(values), np.zeros(128, np.int32)
    merge_sort_tuple_pairs[1, 128](keys, values, keys_out, values_out, ranks_out)
    order = np.lexsort((values, keys))
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(values_out, values[order])
    np.testing.assert_array_equal(ranks_out, order)  # the carried rank is where the pair came from


def test_radix_sort_pairs_carries_tuple_values_stably():
    keys, values = tuple_sort_data()
    keys_out, ranks_out, values_out = np.zeros_like(keys), np.zeros(128, np.int32), np.zeros_like(values)
    radix_sort_tuple_values[1, 128](keys, values, keys_out, ranks_out, values_out)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(keys_out, keys[order])
    np.testing.assert_array_equal(ranks_out, order)
    np.testing.assert_array_equal(values_out, values[order])


# -- a ThreadData of records declared by its structured dtype and filled field by field


@cuda.jit
def fill_and_scan_pairs(a, b, destination):
    """Each thread writes its two (a, b) pairs into a ThreadData of PAIR records by field name."""
    block = coop.this_block()
    items = coop.ThreadData(2, dtype=PAIR)
    for i in range(2):
        items[i].a = a[cuda.threadIdx.x * 2 + i]
        items[i].b = b[cuda.threadIdx.x * 2 + i]
    coop.store(block, destination, coop.inclusive_scan(block, items, scan_op=affine))


def test_a_thread_data_declared_with_a_structured_dtype_is_filled_by_field():
    rng = np.random.default_rng(17)
    a, b = rng.uniform(0.9, 1.0, 256).astype(np.float32), rng.standard_normal(256).astype(np.float32)
    destination = np.zeros(256, PAIR)
    fill_and_scan_pairs[1, 128](a, b, destination)
    pairs = np.zeros(256, PAIR)
    pairs["a"], pairs["b"] = a, b
    products, states = affine_reference(pairs, inclusive=True)
    np.testing.assert_allclose(destination["a"], products, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(destination["b"], states, rtol=1e-3, atol=1e-3)


# -- a ThreadData of records on warps, logical warps, groups of warps and clusters. Warp g's
# tile is the g-th after the call's offset (docs/guide/groups.rst): the kernels pass none.


def warp_move_kernel(lanes):
    """Each warp loads its records (two per lane), adds one to each key, exchanges them to a
    striped arrangement and stores them striped: the same order, keys plus one."""

    @cuda.jit
    def kernel(source, destination):
        warp = coop.this_warp().group_by(lanes) if lanes < 32 else coop.this_warp()
        items = coop.ThreadData(2)
        coop.load(warp, source, items)
        for i in range(2):
            items[i].key = items[i].key + 1
        striped = coop.exchange(warp, items, mode="blocked_to_striped")
        coop.store(warp, destination, striped, algorithm="striped")

    return kernel


@pytest.mark.parametrize("lanes", [32, 16])
@pytest.mark.parametrize("name", ["int32_float32", "int8_float64_int16"])
def test_each_warp_loads_exchanges_and_stores_its_records(name, lanes):
    source = records(RECORDS[name], 128 * 2)
    destination = np.zeros_like(source)
    warp_move_kernel(lanes)[1, 128](source, destination)
    expected = source.copy()
    expected["key"] += 1
    np.testing.assert_array_equal(destination, expected)


def warp_sort_kernel(lanes):
    @cuda.jit
    def kernel(keys_in, values_in, keys_out, values_out, sorted_alone):
        warp = coop.this_warp().group_by(lanes) if lanes < 32 else coop.this_warp()
        keys, values = coop.ThreadData(2), coop.ThreadData(2)
        coop.load(warp, keys_in, keys)
        coop.load(warp, values_in, values)
        coop.store(warp, sorted_alone, coop.merge_sort_keys(warp, keys, compare_op=by_key_then_value))
        sorted_keys, sorted_values = coop.merge_sort_pairs(warp, keys, values, compare_op=by_key_then_value)
        coop.store(warp, keys_out, sorted_keys)
        coop.store(warp, values_out, sorted_values)

    return kernel


@pytest.mark.parametrize("lanes", [32, 16])
def test_each_warp_merge_sorts_its_records_and_carries_record_values(lanes):
    keys = records(RECORDS["int32_float32"], 256)
    keys["key"] %= 8  # ties, broken by the value
    values = records(RECORDS["int64_float32"], 256, seed=9)
    keys_out, values_out, alone = np.zeros_like(keys), np.zeros_like(values), np.zeros_like(keys)
    warp_sort_kernel(lanes)[1, 128](keys, values, keys_out, values_out, alone)
    tile = lanes * 2
    for start in range(0, 256, tile):
        part = slice(start, start + tile)
        order = np.argsort(keys[part], order=["key", "value"]) + start
        np.testing.assert_array_equal(alone[part], keys[order])
        np.testing.assert_array_equal(keys_out[part], keys[order])
        np.testing.assert_array_equal(values_out[part], values[order])


@cuda.jit
def warp_reduce_and_scan_records(triples, totals, pairs, scanned):
    warp = coop.this_warp()
    items = coop.ThreadData(3)
    coop.load(warp, triples, items)
    total, largest, weight = coop.reduce(warp, items, binary_op=key_sum_and_max)
    w = cuda.threadIdx.x // 32
    if cuda.threadIdx.x % 32 == 0:
        totals[w].key = total
        totals[w].value = largest
        totals[w].weight = weight
    steps = coop.ThreadData(2)
    coop.load(warp, pairs, steps)
    coop.store(warp, scanned, coop.inclusive_scan(warp, steps, scan_op=affine))


def test_a_warp_reduces_and_scans_a_thread_data_of_records():
    triples = records(TRIPLE, 128 * 3)
    rng = np.random.default_rng(17)
    pairs = np.zeros(128 * 2, PAIR)
    pairs["a"], pairs["b"] = rng.uniform(0.9, 1.0, len(pairs)), rng.standard_normal(len(pairs))
    totals, scanned = np.zeros(4, TRIPLE), np.zeros_like(pairs)
    warp_reduce_and_scan_records[1, 128](triples, totals, pairs, scanned)
    per_warp = triples.reshape(4, 96)
    np.testing.assert_array_equal(totals["key"], per_warp["key"].sum(axis=1))
    np.testing.assert_array_equal(totals["value"], per_warp["value"].max(axis=1))
    np.testing.assert_allclose(
        totals["weight"], per_warp["weight"].astype(np.float64).sum(axis=1), rtol=1e-4, atol=1e-3
    )
    for w in range(4):  # each warp's scan starts afresh
        part = slice(w * 64, (w + 1) * 64)
        products, states = affine_reference(pairs[part], inclusive=True)
        np.testing.assert_allclose(scanned["a"][part], products, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(scanned["b"][part], states, rtol=1e-3, atol=1e-3)


@cuda.jit
def group_and_cluster_reduce_records(triples, by_group, by_cluster):
    """Each group of two warps and each cluster of two blocks reduces its threads' records
    (three per thread, read at the thread's rank in the grid)."""
    t = cuda.grid(1)
    items = coop.ThreadData(3)
    coop.load(coop.this_block(), triples, items, offset=cuda.blockIdx.x * cuda.blockDim.x * 3)
    group = coop.this_block().group_by(2)
    total, largest, weight = coop.reduce(group, items, binary_op=key_sum_and_max)
    g = t // 64
    if t % 64 == 0:
        by_group[g].key = total
        by_group[g].value = largest
        by_group[g].weight = weight
    cluster = coop.this_cluster()
    total, largest, weight = coop.reduce(cluster, items, binary_op=key_sum_and_max)
    if cluster.rank() == 0:
        c = cluster.rank("grid")
        by_cluster[c].key = total
        by_cluster[c].value = largest
        by_cluster[c].weight = weight


def test_groups_of_warps_and_clusters_reduce_thread_data_of_records():
    blocks, threads = 4, 128  # clusters of two blocks
    triples = records(TRIPLE, blocks * threads * 3)
    by_group, by_cluster = np.zeros(blocks * threads // 64, TRIPLE), np.zeros(blocks // 2, TRIPLE)
    group_and_cluster_reduce_records[blocks, threads, 0, 0, (2, 1, 1)](triples, by_group, by_cluster)
    for out, parts in ((by_group, len(by_group)), (by_cluster, len(by_cluster))):
        split = triples.reshape(parts, -1)
        np.testing.assert_array_equal(out["key"], split["key"].sum(axis=1))
        np.testing.assert_array_equal(out["value"], split["value"].max(axis=1))
        np.testing.assert_allclose(out["weight"], split["weight"].astype(np.float64).sum(axis=1), rtol=1e-4, atol=1e-3)
