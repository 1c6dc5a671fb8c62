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
