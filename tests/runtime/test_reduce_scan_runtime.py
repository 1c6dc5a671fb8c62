"""Block and warp reductions and scans in Python kernels, compared with NumPy
(integers exactly; floats within a relative tolerance of a float64 reference)."""

import builtins
import operator

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

SHAPES = [(128, 1, 1), (32, 4, 1), (96, 1, 1), (1024, 1, 1)]
REDUCE_ALGORITHMS = ["warp_reductions", "raking", "raking_commutative_only"]
SCAN_ALGORITHMS = ["raking", "raking_memoize", "warp_scans"]
REDUCERS = {"sum": np.sum, "min": np.min, "max": np.max}


def data(count, dtype, seed=11):
    rng = np.random.default_rng(seed)
    values = rng.integers(-50, 50, size=count) if np.dtype(dtype).kind == "i" else rng.standard_normal(count)
    return values.astype(dtype)


def check(got, expected, dtype):
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(got, expected, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)
    else:
        np.testing.assert_array_equal(got, expected)


@cuda.jit(device=True)
def rank():
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


def block_reduce_kernel(op, algorithm, items):
    if items == 1:

        @cuda.jit
        def reduce_scalars(source, result):
            value = source[cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z + rank()]
            total = coop.reduce(coop.this_block(), value, binary_op=op, algorithm=algorithm)
            if rank() == 0:
                result[cuda.blockIdx.x] = total

        return reduce_scalars

    @cuda.jit
    def reduce_items(source, result):
        block = coop.this_block()
        tile = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * items
        values = coop.ThreadData(items)
        coop.load(block, source, values, offset=tile)
        total = coop.reduce(block, values, binary_op=op, algorithm=algorithm)
        if rank() == 0:
            result[cuda.blockIdx.x] = total

    return reduce_items


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.int64, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("algorithm", REDUCE_ALGORITHMS)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_block_reduce(op, algorithm, dtype, shape, items):
    threads, blocks = shape[0] * shape[1] * shape[2], 3
    source = data(blocks * threads * items, dtype)
    result = np.zeros(blocks, dtype)
    block_reduce_kernel(op, algorithm, items)[blocks, shape](source, result)
    cuda.synchronize()
    expected = REDUCERS[op](source.astype(np.float64).reshape(blocks, -1), axis=1)
    check(result, expected, dtype)


@cuda.jit
def partial_sum(source, result, valid):
    total = coop.sum(coop.this_block(), source[rank()], valid_items=valid)
    if rank() == 0:
        result[0] = total


@pytest.mark.parametrize("valid", [1, 77, 128])
def test_block_sum_of_the_first_valid_threads(valid):
    source = data(128, np.int32)
    result = np.zeros(1, np.int32)
    partial_sum[1, 128](source, result, valid)
    cuda.synchronize()
    assert result[0] == source[:valid].sum()


def warp_reduce_kernel(op, width, items):
    @cuda.jit
    def reduce_warps(source, result):
        warp = coop.this_warp().group_by(width) if width < 32 else coop.this_warp()
        values = coop.ThreadData(items)
        for i in range(items):
            values[i] = source[rank() * items + i]
        total = coop.reduce(warp, values, binary_op=op)
        if rank() % width == 0:
            result[rank() // width] = total

    return reduce_warps


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("width", [1, 8, 16, 32])
@pytest.mark.parametrize("dtype", [np.int32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", sorted(REDUCERS))
def test_warp_reduce(op, dtype, width, items):
    source = data(128 * items, dtype)
    result = np.zeros(128 // width, dtype)
    warp_reduce_kernel(op, width, items)[1, 128](source, result)
    cuda.synchronize()
    check(result, REDUCERS[op](source.astype(np.float64).reshape(128 // width, -1), axis=1), dtype)


def block_scan_kernel(kind, algorithm):
    @cuda.jit
    def scan(source, destination, aggregate):
        block = coop.this_block()
        values = coop.ThreadData(4)
        coop.load(block, source, values)
        if kind == "inclusive_sum":
            scanned = coop.inclusive_sum(block, values, aggregate_output=aggregate, algorithm=algorithm)
        elif kind == "exclusive_sum":
            scanned = coop.exclusive_sum(block, values, aggregate_output=aggregate, algorithm=algorithm)
        elif kind == "inclusive_max":
            scanned = coop.inclusive_scan(block, values, scan_op="max", aggregate_output=aggregate, algorithm=algorithm)
        else:
            scanned = coop.exclusive_scan(
                block, values, scan_op="sum", initial_value=100, aggregate_output=aggregate, algorithm=algorithm
            )
        coop.store(block, destination, scanned)

    return scan


def expected_scan(kind, values):
    if kind == "inclusive_sum":
        return np.cumsum(values)
    if kind == "exclusive_sum":
        return np.concatenate([[0], np.cumsum(values)[:-1]])
    if kind == "inclusive_max":
        return np.maximum.accumulate(values)
    return 100 + np.concatenate([[0], np.cumsum(values)[:-1]])


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("algorithm", SCAN_ALGORITHMS)
@pytest.mark.parametrize("kind", ["inclusive_sum", "exclusive_sum", "inclusive_max", "exclusive_sum_from_100"])
def test_block_scan(kind, algorithm, shape):
    threads = shape[0] * shape[1] * shape[2]
    source = data(threads * 4, np.int32)
    destination = np.zeros_like(source)
    aggregate = np.zeros(1, np.int32)
    block_scan_kernel(kind, algorithm)[1, shape](source, destination, aggregate)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, expected_scan(kind, source))
    reduced = source.max() if kind == "inclusive_max" else source.sum()
    assert aggregate[0] == reduced


@cuda.jit
def scalar_scans(source, inclusive, exclusive):
    value = source[rank()]
    inclusive[rank()] = coop.inclusive_sum(coop.this_block(), value)
    exclusive[rank()] = coop.exclusive_scan(coop.this_block(), value, scan_op="sum", initial_value=0)


def test_scalar_scans_return_the_scanned_value():
    source = data(256, np.float64)
    inclusive, exclusive = np.zeros_like(source), np.zeros_like(source)
    scalar_scans[1, 256](source, inclusive, exclusive)
    cuda.synchronize()
    check(inclusive, np.cumsum(source), np.float64)
    check(exclusive, np.concatenate([[0], np.cumsum(source)[:-1]]), np.float64)


def warp_scan_kernel(width):
    @cuda.jit
    def scan(source, destination):
        warp = coop.this_warp().group_by(width) if width < 32 else coop.this_warp()
        destination[rank()] = coop.inclusive_sum(warp, source[rank()])

    return scan


@pytest.mark.parametrize("width", [1, 8, 16, 32])
def test_warp_inclusive_sum(width):
    source = data(128, np.int64)
    destination = np.zeros_like(source)
    warp_scan_kernel(width)[1, 128](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, np.cumsum(source.reshape(-1, width), axis=1).ravel())


@cuda.jit
def segments_and_broadcast(source, heads, sums, broadcasts):
    warp = coop.this_warp()
    value = source[rank()]
    total = coop.segmented_reduce(warp, value, heads[rank()], binary_op="sum")
    sums[rank()] = total
    broadcasts[rank()] = coop.broadcast(warp, value, 5)


def test_segmented_reduce_and_broadcast():
    source = data(32, np.int32)
    heads = np.zeros(32, np.int32)
    heads[[0, 7, 20]] = 1
    sums, broadcasts = np.zeros(32, np.int32), np.zeros(32, np.int32)
    segments_and_broadcast[1, 32](source, heads, sums, broadcasts)
    cuda.synchronize()
    for start, stop in [(0, 7), (7, 20), (20, 32)]:
        assert sums[start] == source[start:stop].sum()  # valid in each segment's first lane
    assert (broadcasts == source[5]).all()


def first_nonzero(a, b):
    """Associative, not commutative: the leftmost non-zero value."""
    return a if a != 0 else b


def operator_kernel(algorithm):
    @cuda.jit
    def ordered(source, reduced, scanned):
        block = coop.this_block()
        values = coop.ThreadData(4)
        coop.load(block, source, values)
        total = coop.reduce(block, values, binary_op=first_nonzero, algorithm=algorithm)
        if rank() == 0:
            reduced[0] = total
        coop.store(block, scanned, coop.inclusive_scan(block, values, scan_op=first_nonzero, algorithm="raking"))

    return ordered


@pytest.mark.parametrize("algorithm", ["raking", "warp_reductions"])
def test_a_python_operator_applies_in_order(algorithm):
    source = np.zeros(512, np.int32)
    source[[300, 301, 450]] = [7, 9, 4]  # the first non-zero is 7, at index 300
    reduced, scanned = np.zeros(1, np.int32), np.zeros_like(source)
    operator_kernel(algorithm)[1, 128](source, reduced, scanned)
    cuda.synchronize()
    assert reduced[0] == 7
    expected = np.zeros_like(source)
    expected[300:] = 7
    np.testing.assert_array_equal(scanned, expected)


class RunningTotal:
    """CUB's canonical block prefix callback: the sum of the tiles before this one.
    Each lane of the first warp keeps its own total (a local array)."""

    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


class RunningMax:
    """A prefix callback with a compile-time constant: the largest value so far, at least `floor`."""

    def __init__(self, best, floor):
        self.best = best
        self.floor = floor

    def __call__(self, block_aggregate):
        before = max(self.best[0], self.floor)
        self.best[0] = max(before, block_aggregate)
        return before


def add(a, b):
    return a + b


def running_prefix_kernel(kind, algorithm, dtype, items):
    @cuda.jit
    def running(source, destination, tiles):
        block = coop.this_block()
        tile_items = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * items
        values = coop.ThreadData(items, dtype)
        total = cuda.local.array(1, dtype)
        total[0] = 0
        prefix = RunningTotal(total)
        for tile in range(tiles):
            coop.load(block, source, values, offset=tile * tile_items)
            if kind == "inclusive_sum":
                scanned = coop.inclusive_sum(block, values, prefix_op=prefix, algorithm=algorithm)
            elif kind == "exclusive_sum":
                scanned = coop.exclusive_sum(block, values, prefix_op=prefix, algorithm=algorithm)
            elif kind == "inclusive_scan":
                scanned = coop.inclusive_scan(block, values, scan_op="sum", prefix_op=prefix, algorithm=algorithm)
            else:  # a Python operator other than the sum: the prefix callback is its seed
                scanned = coop.exclusive_scan(block, values, scan_op=add, prefix_op=prefix, algorithm=algorithm)
            coop.store(block, destination, scanned, offset=tile * tile_items)

    return running


def exclusive(cumulative):
    return np.concatenate([[0], cumulative[:-1]])


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("algorithm", SCAN_ALGORITHMS)
@pytest.mark.parametrize("kind", ["inclusive_sum", "exclusive_sum", "inclusive_scan", "exclusive_scan"])
def test_a_running_prefix_over_tiles_matches_cumsum(kind, algorithm, shape):
    threads, tiles = shape[0] * shape[1] * shape[2], 37
    source = data(threads * 4 * tiles, np.int64)
    destination = np.zeros_like(source)
    running_prefix_kernel(kind, algorithm, np.int64, 4)[1, shape](source, destination, tiles)
    cuda.synchronize()
    cumulative = np.cumsum(source)
    np.testing.assert_array_equal(destination, cumulative if kind.startswith("inclusive") else exclusive(cumulative))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=lambda d: np.dtype(d).name)
def test_a_running_prefix_of_one_item_per_thread(dtype):
    tiles = 200
    source = data(128 * tiles, dtype)
    destination = np.zeros_like(source)
    running_prefix_kernel("inclusive_sum", "raking", dtype, 1)[1, 128](source, destination, tiles)
    cuda.synchronize()
    expected = np.cumsum(source.astype(np.float64))
    if dtype == np.float32:  # 25,600 float32 additions in another order: the error grows with the length
        np.testing.assert_allclose(destination, expected, rtol=1e-5, atol=0.05)
    else:
        check(destination, expected, dtype)


@cuda.jit
def running_max_of_scalars(source, destination, tiles):
    block = coop.this_block()
    best = cuda.local.array(1, np.float32)
    best[0] = -1e30
    prefix = RunningMax(best, -5.0)
    for tile in range(tiles):
        value = source[tile * 256 + rank()]
        destination[tile * 256 + rank()] = coop.inclusive_scan(block, value, scan_op=max, prefix_op=prefix)


def test_a_prefix_callback_with_a_constant_on_scalars():
    tiles = 9
    source = data(256 * tiles, np.float32) * 3 - 12  # most values below the floor
    destination = np.zeros_like(source)
    running_max_of_scalars[1, 256](source, destination, tiles)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, np.maximum.accumulate(np.maximum(source, np.float32(-5.0))))


def larger(a, b):
    return max(a, b)


@cuda.jit
def half_operators(source, reduced, scanned):
    block = coop.this_block()
    values = coop.ThreadData(4)
    coop.load(block, source, values)
    total = coop.reduce(block, values, binary_op=first_nonzero)
    if rank() == 0:
        reduced[0] = total
    coop.store(block, scanned, coop.inclusive_scan(block, values, scan_op=larger))


def test_python_operators_on_float16():
    source = np.zeros(512, np.float16)
    source[[100, 200, 300]] = [np.float16(-2.5), np.float16(7.0), np.float16(3.0)]
    reduced, scanned = np.zeros(1, np.float16), np.zeros_like(source)
    half_operators[1, 128](source, reduced, scanned)
    cuda.synchronize()
    assert reduced[0] == np.float16(-2.5)  # the first non-zero, in order
    np.testing.assert_array_equal(scanned, np.maximum.accumulate(source))


def complex_data(count, dtype, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(dtype)


def check_complex(got, expected, dtype):
    tolerance = 1e-4 if dtype == np.complex64 else 1e-10
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance)


def complex_sums_kernel(algorithm, scan_algorithm, items):
    @cuda.jit
    def complex_sums(source, sums, scanned, aggregate):
        block = coop.this_block()
        tile = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * items
        values = coop.ThreadData(items)
        coop.load(block, source, values, offset=tile)
        total = coop.sum(block, values, algorithm=algorithm)
        if rank() == 0:
            sums[cuda.blockIdx.x] = total
        before = coop.exclusive_sum(block, values, aggregate_output=aggregate, algorithm=scan_algorithm)
        coop.store(block, scanned, before, offset=tile)

    return complex_sums


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("algorithms", list(zip(REDUCE_ALGORITHMS, SCAN_ALGORITHMS)), ids="-".join)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_complex_block_sums(dtype, algorithms, shape, items):
    threads = shape[0] * shape[1] * shape[2]
    source = complex_data(threads * items, dtype)
    sums, scanned, aggregate = np.zeros(1, dtype), np.zeros_like(source), np.zeros(1, dtype)
    complex_sums_kernel(*algorithms, items)[1, shape](source, sums, scanned, aggregate)
    cuda.synchronize()
    reference = source.astype(np.complex128)
    check_complex(sums, [reference.sum()], dtype)
    check_complex(aggregate, [reference.sum()], dtype)
    check_complex(scanned, np.concatenate([[0], np.cumsum(reference)[:-1]]), dtype)


@cuda.jit
def complex_scalars(source, block_sums, warp_sums, loaded, scanned):
    # Complex values cross to the providers by pointer: a scalar payload, a runtime
    # oob_default and a runtime initial_value.
    block = coop.this_block()
    t = cuda.threadIdx.x
    block_sums[t] = coop.sum(block, source[t])
    warp_sums[t] = coop.sum(coop.this_warp(), source[t])
    items = coop.ThreadData(2, dtype=source.dtype)
    coop.load(block, source, items, algorithm="transpose", valid_items=200, oob_default=source[1])
    coop.store(block, loaded, items)
    coop.store(block, scanned, coop.exclusive_scan(block, items, scan_op="+", initial_value=source[2]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_complex_scalars_and_runtime_values_cross_by_pointer(dtype):
    source = complex_data(256, dtype, seed=5)
    block_sums, warp_sums = np.zeros(128, dtype), np.zeros(128, dtype)
    loaded, scanned = np.zeros(256, dtype), np.zeros(256, dtype)
    complex_scalars[1, 128](source, block_sums, warp_sums, loaded, scanned)
    cuda.synchronize()
    reference = source.astype(np.complex128)
    check_complex(block_sums, np.full(128, reference[:128].sum()), dtype)
    check_complex(warp_sums, np.repeat(reference[:128].reshape(4, 32).sum(axis=1), 32), dtype)
    expected_loaded = np.where(np.arange(256) < 200, reference, reference[1])
    check_complex(loaded, expected_loaded, dtype)
    check_complex(scanned, reference[2] + np.concatenate([[0], np.cumsum(expected_loaded)[:-1]]), dtype)


def complex_multiply(a, b):
    return a * b


def complex_warp_kernel(width):
    @cuda.jit
    def warp_products(source, products, scanned):
        warp = coop.this_warp().group_by(width) if width < 32 else coop.this_warp()
        values = coop.ThreadData(4)
        coop.load(warp, source, values)  # each logical warp reads its own tile
        product = coop.reduce(warp, values, binary_op=complex_multiply)
        if rank() % width == 0:
            products[rank() // width] = product
        coop.store(warp, scanned, coop.inclusive_sum(warp, values))

    return warp_products


@pytest.mark.parametrize("width", [8, 16, 32])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_complex_warp_product_with_a_python_operator_and_sum(dtype, width):
    # Values near the unit circle keep a product of 128 terms in range.
    angles = np.random.default_rng(9).uniform(-np.pi, np.pi, 128 * 4)
    source = (np.exp(1j * angles) * 1.001).astype(dtype)
    products, scanned = np.zeros(128 // width, dtype), np.zeros_like(source)
    complex_warp_kernel(width)[1, 128](source, products, scanned)
    cuda.synchronize()
    groups = source.astype(np.complex128).reshape(128 // width, -1)
    check_complex(products, np.prod(groups, axis=1), dtype)
    check_complex(scanned, np.cumsum(groups, axis=1).ravel(), dtype)


def broadcast_kernel(group_width, broadcast):
    """Every thread writes the reduction it got: the group's total in every thread (broadcast,
    the default), or in the group's first thread only (broadcast=False)."""

    @cuda.jit
    def totals(source, got_sum, got_max):
        group = coop.this_block() if group_width == 0 else coop.this_warp().group_by(group_width)
        items = coop.ThreadData(3)
        coop.load(group, source, items)
        got_sum[rank()] = coop.sum(group, items, broadcast=broadcast)
        got_max[rank()] = coop.reduce(group, items, binary_op="max", broadcast=broadcast)

    return totals


@pytest.mark.parametrize("broadcast", [True, False])
@pytest.mark.parametrize("group_width", [0, 1, 8, 32], ids=["block", "warp1", "warp8", "warp32"])
@pytest.mark.parametrize("shape", [(128, 1, 1), (32, 2, 2)], ids=lambda s: "x".join(map(str, s)))
def test_reductions_reach_every_thread_of_the_group(shape, group_width, broadcast):
    threads = shape[0] * shape[1] * shape[2]
    source = np.random.default_rng(9).integers(-50, 50, size=threads * 3).astype(np.int32)
    got_sum, got_max = np.zeros(threads, np.int32), np.zeros(threads, np.int32)
    broadcast_kernel(group_width, broadcast)[1, shape](source, got_sum, got_max)
    cuda.synchronize()
    width = threads if group_width == 0 else group_width
    tiles = source.reshape(threads // width, width * 3)  # each group's own tile of the block's
    expected_sum = np.repeat(tiles.sum(axis=1), width)
    expected_max = np.repeat(tiles.max(axis=1), width)
    first = np.arange(threads) % width == 0
    checked = np.ones(threads, bool) if broadcast else first
    np.testing.assert_array_equal(got_sum[checked], expected_sum[checked])
    np.testing.assert_array_equal(got_max[checked], expected_max[checked])


# The seed's shapes: scans return a fresh payload, coop.scan takes a mode, an exclusive scan of
# another operator than the sum starts from initial_value, and aggregate_output takes a one-item
# ThreadData or array.

SEED = 1000  # the exclusive scans' initial_value: larger than every item (min) and smaller (max, -SEED)

SCAN_CALLS = {
    "inclusive_sum": lambda tile: np.cumsum(tile),
    "exclusive_sum": lambda tile: exclusive(np.cumsum(tile)),
    "inclusive_scan_max": lambda tile: np.maximum.accumulate(tile),
    "exclusive_scan_min": lambda tile: np.minimum.accumulate(np.concatenate([[SEED], tile]))[:-1],
    "scan": lambda tile: exclusive(np.cumsum(tile)),  # mode="exclusive" and the sum: from 0
    "scan_exclusive_max": lambda tile: np.maximum.accumulate(np.concatenate([[-SEED], tile]))[:-1],
    "scan_inclusive": lambda tile: np.cumsum(tile),
    "scan_inclusive_xor": lambda tile: np.bitwise_xor.accumulate(tile),
}


def scan_call_kernel(call, group_width, payload):
    """One scan entry point over 4 items per thread; its result and its input are both stored."""

    @cuda.jit
    def fresh(source, scanned, kept):
        group = coop.this_block() if group_width == 0 else coop.this_warp().group_by(group_width)
        values = coop.ThreadData(4) if payload == "thread_data" else cuda.local.array(4, np.int32)
        coop.load(group, source, values)
        if call == "inclusive_sum":
            out = coop.inclusive_sum(group, values)
        elif call == "exclusive_sum":
            out = coop.exclusive_sum(group, values)
        elif call == "inclusive_scan_max":
            out = coop.inclusive_scan(group, values, scan_op="max")
        elif call == "exclusive_scan_min":
            out = coop.exclusive_scan(group, values, scan_op="min", initial_value=SEED)
        elif call == "scan":
            out = coop.scan(group, values)
        elif call == "scan_exclusive_max":
            out = coop.scan(group, values, mode="exclusive", scan_op="max", initial_value=-SEED)
        elif call == "scan_inclusive":
            out = coop.scan(group, values, mode="inclusive")
        else:
            out = coop.scan(group, values, mode="inclusive", scan_op="bit_xor")
        coop.store(group, scanned, out)
        coop.store(group, kept, values)

    return fresh


@pytest.mark.parametrize("payload", ["thread_data", "local_array"])
@pytest.mark.parametrize("group_width", [0, 1, 8, 32], ids=["block", "warp1", "warp8", "warp32"])
@pytest.mark.parametrize("call", sorted(SCAN_CALLS))
def test_a_scan_returns_a_fresh_payload_and_leaves_its_input_unchanged(call, group_width, payload):
    source = data(128 * 4, np.int32)
    scanned, kept = np.zeros_like(source), np.zeros_like(source)
    scan_call_kernel(call, group_width, payload)[1, 128](source, scanned, kept)
    cuda.synchronize()
    tiles = source.reshape(-1, 4 * (group_width or 128))  # each group scans its own tile
    np.testing.assert_array_equal(scanned, np.concatenate([SCAN_CALLS[call](tile) for tile in tiles]))
    np.testing.assert_array_equal(kept, source)


def scalar_scan_kernel(mode, group_width):
    """coop.scan of one value per thread, its mode a compile-time constant: an exclusive scan of
    the maximum starts from initial_value; an inclusive one takes none."""

    @cuda.jit
    def modes(source, scanned):
        group = coop.this_block() if group_width == 0 else coop.this_warp().group_by(group_width)
        if mode == "exclusive":
            value = coop.scan(group, source[rank()], mode=mode, scan_op="max", initial_value=-SEED)
        else:
            value = coop.scan(group, source[rank()], mode=mode, scan_op="max")
        scanned[rank()] = value

    return modes


@pytest.mark.parametrize("group_width", [0, 16], ids=["block", "warp16"])
@pytest.mark.parametrize("mode", ["exclusive", "inclusive"])
def test_scan_modes_on_one_value_per_thread(mode, group_width):
    source = data(256, np.int64)
    scanned = np.zeros_like(source)
    scalar_scan_kernel(mode, group_width)[1, 256](source, scanned)
    cuda.synchronize()
    expected = SCAN_CALLS["scan_exclusive_max" if mode == "exclusive" else "inclusive_scan_max"]
    tiles = source.reshape(-1, group_width or 256)
    np.testing.assert_array_equal(scanned, np.concatenate([expected(tile) for tile in tiles]))


def aggregate_kernel(holder, group_width):
    """The group's aggregate reaches every thread of the group, in a one-item ThreadData (its
    dtype given or taken from the scan) or a local array; it does not count initial_value."""

    @cuda.jit
    def aggregates(source, scanned, totals):
        group = coop.this_block() if group_width == 0 else coop.this_warp().group_by(group_width)
        values = coop.ThreadData(2)
        coop.load(group, source, values)
        if holder == "thread_data":
            total = coop.ThreadData(1, dtype=np.int32)
        elif holder == "thread_data_untyped":
            total = coop.ThreadData(1)
        else:
            total = cuda.local.array(1, np.int32)
        out = coop.exclusive_scan(group, values, scan_op="+", initial_value=SEED, aggregate_output=total)
        coop.store(group, scanned, out)
        totals[rank()] = total[0]

    return aggregates


@pytest.mark.parametrize("group_width", [0, 8], ids=["block", "warp8"])
@pytest.mark.parametrize("holder", ["thread_data", "thread_data_untyped", "local_array"])
def test_aggregate_output_reaches_every_thread(holder, group_width):
    source = data(128 * 2, np.int32)
    scanned, totals = np.zeros_like(source), np.zeros(128, np.int32)
    aggregate_kernel(holder, group_width)[1, 128](source, scanned, totals)
    cuda.synchronize()
    width = group_width or 128
    tiles = source.reshape(-1, 2 * width)
    np.testing.assert_array_equal(scanned, np.concatenate([SEED + exclusive(np.cumsum(tile)) for tile in tiles]))
    np.testing.assert_array_equal(totals, np.repeat(tiles.sum(axis=1), width))


OPERATOR_SPELLINGS = {
    "sum": [None, "sum", "+", "add", "plus", operator.add, np.add, add, lambda a, b: a + b],
    "max": ["max", "maximum", builtins.max, np.maximum, larger],
    "bit_xor": ["bit_xor", "^", operator.xor, np.bitwise_xor],
}
SPELLED = [(name, spelling) for name, spellings in OPERATOR_SPELLINGS.items() for spelling in spellings]
NUMPY = {"sum": np.add, "max": np.maximum, "bit_xor": np.bitwise_xor}


def spelling_id(spelling) -> str:
    """A test id the same in every process (no addresses): 'max', np.maximum, operator.add."""
    if spelling is None or isinstance(spelling, str):
        return repr(spelling)
    module = "np" if isinstance(spelling, np.ufunc) else spelling.__module__.strip("_")
    return f"{module}.{spelling.__name__}"


def spelled_operator_kernel(op):
    """binary_op= of a reduction and scan_op= of an inclusive scan, spelled alike."""

    @cuda.jit
    def spelled(source, reduced, scanned):
        block = coop.this_block()
        values = coop.ThreadData(4)
        coop.load(block, source, values)
        total = coop.reduce(block, values, binary_op=op)
        if rank() == 0:
            reduced[0] = total
        coop.store(block, scanned, coop.inclusive_scan(block, values, scan_op=op))

    return spelled


@pytest.mark.parametrize(("name", "spelling"), SPELLED, ids=[spelling_id(spelling) for _, spelling in SPELLED])
def test_every_spelling_of_an_operator_computes_it(name, spelling):
    source = data(512, np.int32)
    reduced, scanned = np.zeros(1, np.int32), np.zeros_like(source)
    spelled_operator_kernel(spelling)[1, 128](source, reduced, scanned)
    cuda.synchronize()
    assert reduced[0] == NUMPY[name].reduce(source)
    np.testing.assert_array_equal(scanned, NUMPY[name].accumulate(source))


def seeded_exclusive_kernel(op, seed):
    @cuda.jit
    def seeded(source, scanned):
        block = coop.this_block()
        values = coop.ThreadData(2)
        coop.load(block, source, values)
        coop.store(block, scanned, coop.exclusive_scan(block, values, scan_op=op, initial_value=seed))

    return seeded


@pytest.mark.parametrize(
    ("op", "seed", "ufunc"),
    [("mul", 1.0, np.multiply), (np.minimum, np.inf, np.minimum), (larger, -np.inf, np.maximum)],
    ids=["mul", "np.minimum", "python"],
)
def test_an_exclusive_scan_of_another_operator_starts_from_its_initial_value(op, seed, ufunc):
    source = (1 + data(256, np.float64) / 1000).astype(np.float64)  # products of 256 stay near 1
    scanned = np.zeros_like(source)
    seeded_exclusive_kernel(op, seed)[1, 128](source, scanned)
    cuda.synchronize()
    check(scanned, ufunc.accumulate(np.concatenate([[seed], source]))[:-1], np.float64)


@cuda.jit
def sum_of_first_items(source, result):
    block = coop.this_block()
    values = coop.ThreadData(3)  # its dtype comes from the load; an item of it is a scalar of that dtype
    coop.load(block, source, values)
    result[rank()] = coop.sum(block, values[0]) + coop.sum(block, values[2])


def test_an_item_of_an_untyped_payload_is_a_scalar_of_its_dtype():
    source = data(128 * 3, np.int32)
    result = np.zeros(128, np.int32)
    sum_of_first_items[1, 128](source, result)
    cuda.synchronize()
    tiles = source.reshape(128, 3)
    np.testing.assert_array_equal(result, tiles[:, 0].sum() + tiles[:, 2].sum())


@cuda.jit(device=True)
def _larger(a, b):
    return max(a, b)  # a Python operator, reduced as the built-in max is


@cuda.jit
def partial_tile_reductions(values, out, valid):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(4))  # the whole tile: the items past `valid` are garbage
    total = coop.sum(block, items, valid_items=valid)
    largest = coop.reduce(block, items, binary_op="max", valid_items=valid)
    by_python = coop.reduce(block, items, binary_op=_larger, valid_items=valid)
    if cuda.threadIdx.x == 0:
        out[0] = total
        out[1] = largest
        out[2] = by_python


@pytest.mark.parametrize("valid", [1, 3, 4, 5, 257, 511, 512])
def test_a_block_reduction_of_a_partial_thread_data_ignores_the_items_past_it(valid):
    values = np.random.default_rng(valid).integers(-1000, 1000, 512).astype(np.int32)
    values[valid:] = 10**6  # would win the max and spoil the sum if read
    out = np.zeros(3, np.int32)
    partial_tile_reductions[1, 128](values, out, valid)
    cuda.synchronize()
    prefix = values[:valid]
    assert list(out) == [prefix.sum(), prefix.max(), prefix.max()]
