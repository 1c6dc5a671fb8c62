"""Block and warp reductions and scans in Python kernels, compared with NumPy
(integers exactly; floats within a relative tolerance of a float64 reference)."""

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
            total = coop.reduce(coop.this_block(), value, op, algorithm=algorithm)
            if rank() == 0:
                result[cuda.blockIdx.x] = total

        return reduce_scalars

    @cuda.jit
    def reduce_items(source, result):
        block = coop.this_block()
        tile = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z * items
        values = coop.ThreadData(items)
        coop.load(block, source, values, offset=tile)
        total = coop.reduce(block, values, op, algorithm=algorithm)
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
        total = coop.reduce(warp, values, op)
        if rank() % width == 0:
            result[rank() // width] = total

    return reduce_warps


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("width", [8, 16, 32])
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
            coop.inclusive_sum(block, values, block_aggregate=aggregate, algorithm=algorithm)
        elif kind == "exclusive_sum":
            coop.exclusive_sum(block, values, block_aggregate=aggregate, algorithm=algorithm)
        elif kind == "inclusive_max":
            coop.inclusive_scan(block, values, "max", block_aggregate=aggregate, algorithm=algorithm)
        else:
            coop.exclusive_scan(block, values, "sum", initial_value=100, block_aggregate=aggregate, algorithm=algorithm)
        coop.store(block, destination, values)

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
    exclusive[rank()] = coop.exclusive_scan(coop.this_block(), value, "sum", initial_value=0)


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


@pytest.mark.parametrize("width", [8, 16, 32])
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
    total = coop.segmented_reduce(warp, value, heads[rank()], "sum")
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
        total = coop.reduce(block, values, first_nonzero, algorithm=algorithm)
        if rank() == 0:
            reduced[0] = total
        coop.inclusive_scan(block, values, first_nonzero, algorithm="raking")
        coop.store(block, scanned, values)

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
                coop.inclusive_sum(block, values, prefix_op=prefix, algorithm=algorithm)
            elif kind == "exclusive_sum":
                coop.exclusive_sum(block, values, prefix_op=prefix, algorithm=algorithm)
            elif kind == "inclusive_scan":
                coop.inclusive_scan(block, values, "sum", prefix_op=prefix, algorithm=algorithm)
            else:
                coop.exclusive_scan(block, values, add, prefix_op=prefix, algorithm=algorithm)
            coop.store(block, destination, values, offset=tile * tile_items)

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
        destination[tile * 256 + rank()] = coop.inclusive_scan(block, value, max, prefix_op=prefix)


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
    total = coop.reduce(block, values, first_nonzero)
    if rank() == 0:
        reduced[0] = total
    coop.inclusive_scan(block, values, larger)
    coop.store(block, scanned, values)


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
        coop.exclusive_sum(block, values, block_aggregate=aggregate, algorithm=scan_algorithm)
        coop.store(block, scanned, values, offset=tile)

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


def complex_multiply(a, b):
    return a * b


def complex_warp_kernel(width):
    @cuda.jit
    def warp_products(source, products, scanned):
        warp = coop.this_warp().group_by(width) if width < 32 else coop.this_warp()
        values = coop.ThreadData(4)
        coop.load(warp, source, values)  # each logical warp reads its own tile
        product = coop.reduce(warp, values, complex_multiply)
        if rank() % width == 0:
            products[rank() // width] = product
        coop.inclusive_sum(warp, values)
        coop.store(warp, scanned, values)

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
        got_max[rank()] = coop.reduce(group, items, "max", broadcast=broadcast)

    return totals


@pytest.mark.parametrize("broadcast", [True, False])
@pytest.mark.parametrize("group_width", [0, 8, 32], ids=["block", "warp8", "warp32"])
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
