"""Tuples of scalars as one payload value (records), reduced and scanned with Python
operators on blocks, warps and logical warps, compared with NumPy: (sum, sum of squares)
pairs, a Welford (count, mean, m2) triple, an (value, index) argmax, a record with padding,
and the selective scan's affine pairs (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2)."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

SHAPES = [(128, 1, 1), (32, 4, 1), (96, 1, 1), (1024, 1, 1)]
REDUCE_ALGORITHMS = ["warp_reductions", "raking", "raking_commutative_only"]
SCAN_ALGORITHMS = ["raking", "raking_memoize", "warp_scans"]


@cuda.jit(device=True)
def rank():
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


def sum_and_squares(a, b):
    return a[0] + b[0], a[1] + b[1]


def welford(a, b):
    count = a[0] + b[0]
    if count == 0:
        return a
    delta = b[1] - a[1]
    mean = a[1] + delta * b[0] / count
    m2 = a[2] + b[2] + delta * delta * a[0] * b[0] / count
    return count, mean, m2


def argmax(a, b):
    """(value, index): the larger value, the lower index among equals."""
    if b[0] > a[0] or (b[0] == a[0] and b[1] < a[1]):
        return b
    return a


def affine(left, right):
    return left[0] * right[0], right[0] * left[1] + right[1]


def threads(shape):
    return shape[0] * shape[1] * shape[2]


def pair_reduce_kernel(algorithm):
    @cuda.jit
    def kernel(values, sums, squares):
        base = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
        x = values[base + rank()]
        s, sq = coop.reduce(coop.this_block(), (x, x * x), binary_op=sum_and_squares, algorithm=algorithm)
        sums[base + rank()] = s  # broadcast: every thread holds the block's result
        squares[base + rank()] = sq

    return kernel


@pytest.mark.parametrize("algorithm", REDUCE_ALGORITHMS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_block_pair_reduction_reaches_every_thread(shape, algorithm):
    blocks, count = 3, threads(shape)
    values = np.random.default_rng(3).standard_normal(blocks * count).astype(np.float32)
    sums, squares = np.zeros_like(values), np.zeros_like(values)
    pair_reduce_kernel(algorithm)[blocks, shape](values, sums, squares)
    tiles = values.astype(np.float64).reshape(blocks, count)
    np.testing.assert_allclose(sums.reshape(blocks, count), tiles.sum(1, keepdims=True).repeat(count, 1), atol=1e-3)
    np.testing.assert_allclose(
        squares.reshape(blocks, count), (tiles**2).sum(1, keepdims=True).repeat(count, 1), rtol=1e-4
    )


@cuda.jit
def welford_kernel(values, out):
    base = cuda.blockIdx.x * cuda.blockDim.x
    state = (np.int32(1), values[base + cuda.threadIdx.x], np.float32(0))
    count, mean, m2 = coop.reduce(coop.this_block(), state, binary_op=welford)
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x, 0] = count
        out[cuda.blockIdx.x, 1] = mean
        out[cuda.blockIdx.x, 2] = m2 / count


@pytest.mark.parametrize("block", [32, 256, 1024])
def test_welford_triple_gives_mean_and_variance(block):
    rows = 4
    values = (np.random.default_rng(5).standard_normal(rows * block) * 3 + 10).astype(np.float32)
    out = np.zeros((rows, 3), np.float32)
    welford_kernel[rows, block](values, out)
    tiles = values.astype(np.float64).reshape(rows, block)
    np.testing.assert_array_equal(out[:, 0], block)
    np.testing.assert_allclose(out[:, 1], tiles.mean(1), rtol=1e-5)
    np.testing.assert_allclose(out[:, 2], tiles.var(1), rtol=1e-3)


def argmax_kernel(width):
    @cuda.jit
    def kernel(values, best, where):
        t = cuda.threadIdx.x
        value, index = coop.reduce(coop.this_warp().group_by(width), (values[t], np.int32(t)), binary_op=argmax)
        best[t] = value
        where[t] = index

    return kernel


@pytest.mark.parametrize("width", [4, 8, 16, 32])
def test_warp_argmax_of_value_index_pairs(width):
    values = np.random.default_rng(7).integers(0, 5, 128).astype(np.float32)  # ties on purpose
    best, where = np.zeros_like(values), np.zeros(128, np.int32)
    argmax_kernel(width)[1, 128](values, best, where)
    groups = values.reshape(-1, width)
    expected = (groups.argmax(1) + np.arange(0, 128, width)).astype(np.int32)
    np.testing.assert_array_equal(where, expected.repeat(width))
    np.testing.assert_array_equal(best, groups.max(1).repeat(width))


def padded(a, b):
    return a[0] + b[0], max(a[1], b[1]), a[2] + b[2]


@cuda.jit
def padded_kernel(values, out):
    t = cuda.threadIdx.x
    flags, largest, count = coop.reduce(
        coop.this_block(), (np.int8(t % 2), values[t], np.int16(1)), binary_op=padded, broadcast=False
    )
    if t == 0:
        out[0] = flags
        out[1] = largest
        out[2] = count


def test_a_record_with_padding_keeps_every_field():
    values = np.random.default_rng(9).standard_normal(64)
    out = np.zeros(3, np.float64)
    padded_kernel[1, 64](values, out)
    np.testing.assert_array_equal(out, [32, values.max(), 64])  # int8 of 32 ones, the max, an int16 count


def affine_reference(a, b, inclusive=True):
    """Sequential (prod a, h) with h_i = a_i h_(i-1) + b_i, in float64."""
    products, states = np.empty_like(a, np.float64), np.empty_like(b, np.float64)
    product, state = 1.0, 0.0
    for i in range(len(a)):
        if not inclusive:
            products[i], states[i] = product, state
        product, state = product * a[i], a[i] * state + b[i]
        if inclusive:
            products[i], states[i] = product, state
    return products, states


def affine_data(count, seed=13):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.9, 1.0, count).astype(np.float32), rng.standard_normal(count).astype(np.float32)


def block_scan_kernel(mode, algorithm):
    if mode == "inclusive":

        @cuda.jit
        def inclusive(a, b, out_a, out_b):
            t = rank()
            x, y = coop.inclusive_scan(coop.this_block(), (a[t], b[t]), scan_op=affine, algorithm=algorithm)
            out_a[t] = x
            out_b[t] = y

        return inclusive

    @cuda.jit
    def exclusive(a, b, out_a, out_b):
        t = rank()
        x, y = coop.exclusive_scan(
            coop.this_block(), (a[t], b[t]), scan_op=affine, initial_value=(1.0, 0.0), algorithm=algorithm
        )
        out_a[t] = x
        out_b[t] = y

    return exclusive


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("algorithm", SCAN_ALGORITHMS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_block_scan_of_affine_pairs_is_the_recurrence(shape, algorithm, mode):
    count = threads(shape)
    a, b = affine_data(count)
    out_a, out_b = np.zeros_like(a), np.zeros_like(b)
    block_scan_kernel(mode, algorithm)[1, shape](a, b, out_a, out_b)
    products, states = affine_reference(a, b, inclusive=mode == "inclusive")
    np.testing.assert_allclose(out_a, products, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out_b, states, rtol=1e-3, atol=1e-3)


def warp_scan_kernel(width, mode):
    @cuda.jit
    def kernel(a, b, out_a, out_b):
        t = cuda.threadIdx.x
        group = coop.this_warp().group_by(width)
        if mode == 0:
            x, y = coop.inclusive_scan(group, (a[t], b[t]), scan_op=affine)
        else:
            x, y = coop.exclusive_scan(group, (a[t], b[t]), scan_op=affine, initial_value=(1.0, 0.0))
        out_a[t] = x
        out_b[t] = y

    return kernel


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("width", [8, 16, 32])
def test_warp_scan_of_affine_pairs_is_the_recurrence_per_group(width, mode):
    a, b = affine_data(128, seed=width)
    out_a, out_b = np.zeros_like(a), np.zeros_like(b)
    warp_scan_kernel(width, 0 if mode == "inclusive" else 1)[1, 128](a, b, out_a, out_b)
    for group in range(128 // width):
        span = slice(group * width, (group + 1) * width)
        products, states = affine_reference(a[span], b[span], inclusive=mode == "inclusive")
        np.testing.assert_allclose(out_a[span], products, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(out_b[span], states, rtol=1e-3, atol=1e-3)


@cuda.jit
def warps_group_kernel(values, sums, squares):
    t = cuda.threadIdx.x
    x = values[t]
    s, sq = coop.reduce(coop.this_block().group_by(2), (x, x * x), binary_op=sum_and_squares)
    sums[t] = s
    squares[t] = sq


def test_groups_of_warps_reduce_pairs_to_every_member():
    values = np.random.default_rng(17).standard_normal(256).astype(np.float32)
    sums, squares = np.zeros_like(values), np.zeros_like(values)
    warps_group_kernel[1, 256](values, sums, squares)
    groups = values.astype(np.float64).reshape(4, 64)
    np.testing.assert_allclose(sums, groups.sum(1).repeat(64), atol=1e-3)
    np.testing.assert_allclose(squares, (groups**2).sum(1).repeat(64), rtol=1e-4)


class PairPrefix:
    """The running pair of a selective scan over tiles, kept in a two-item local array."""

    def __init__(self, state):
        self.state = state

    def __call__(self, block_aggregate):
        before = (self.state[0], self.state[1])
        self.state[0], self.state[1] = affine(before, block_aggregate)
        return before


@cuda.jit(device=True)
def pair_carry(state, block_aggregate):
    before = (state[0], state[1])
    state[0], state[1] = affine(before, block_aggregate)
    return before


def tiled_pair_scan_kernel(form, mode):
    """One block per row of `a` and `b` ([rows, length]), scanning the row tile by tile with
    the running pair in a PairPrefix object or a StatefulFunction's state."""
    carry = coop.StatefulFunction(pair_carry, np.float32)
    inclusive = mode == "inclusive"

    @cuda.jit
    def with_a_class(a, b, out_a, out_b, final):
        row, t = cuda.blockIdx.x, cuda.threadIdx.x
        block = coop.this_block()
        state = cuda.local.array(2, np.float32)
        state[0], state[1] = 1.0, 0.0
        prefix = PairPrefix(state)
        for start in range(0, a.shape[1], cuda.blockDim.x):
            pair = (a[row, start + t], b[row, start + t])
            if inclusive:
                x, y = coop.inclusive_scan(block, pair, scan_op=affine, prefix_op=prefix)
            else:
                x, y = coop.exclusive_scan(block, pair, scan_op=affine, prefix_op=prefix)
            out_a[row, start + t], out_b[row, start + t] = x, y
        if t == 0:
            final[row, 0], final[row, 1] = state[0], state[1]

    @cuda.jit
    def with_a_stateful_function(a, b, out_a, out_b, final):
        row, t = cuda.blockIdx.x, cuda.threadIdx.x
        block = coop.this_block()
        state = coop.ThreadData(2, dtype=np.float32)
        state[0], state[1] = 1.0, 0.0
        for start in range(0, a.shape[1], cuda.blockDim.x):
            pair = (a[row, start + t], b[row, start + t])
            if inclusive:
                x, y = coop.inclusive_scan(block, pair, state, scan_op=affine, prefix_op=carry)
            else:
                x, y = coop.exclusive_scan(block, pair, state, scan_op=affine, prefix_op=carry)
            out_a[row, start + t], out_b[row, start + t] = x, y
        if t == 0:
            final[row, 0], final[row, 1] = state[0], state[1]

    return with_a_class if form == "class" else with_a_stateful_function


@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("form", ["class", "stateful_function"])
def test_a_pair_prefix_op_scans_rows_tile_by_tile(form, mode):
    rows, block, tiles = 3, 128, 5
    a, b = affine_data(rows * block * tiles, seed=21)
    a, b = a.reshape(rows, -1), b.reshape(rows, -1)
    out_a, out_b, final = np.zeros_like(a), np.zeros_like(b), np.zeros((rows, 2), np.float32)
    tiled_pair_scan_kernel(form, mode)[rows, block](a, b, out_a, out_b, final)
    for row in range(rows):
        products, states = affine_reference(a[row], b[row], inclusive=mode == "inclusive")
        np.testing.assert_allclose(out_a[row], products, rtol=1e-3, atol=1e-6)
        np.testing.assert_allclose(out_b[row], states, rtol=1e-3, atol=1e-3)
        last_products, last_states = affine_reference(a[row], b[row])
        np.testing.assert_allclose(final[row], [last_products[-1], last_states[-1]], rtol=1e-3, atol=1e-3)


def shuffle_pairs_kernel(mode):
    @cuda.jit
    def kernel(values, indices, out_values, out_indices, distance):
        t = cuda.threadIdx.x
        pair = (values[t], indices[t])
        value, index = coop.shuffle(coop.this_block(), pair, mode=mode, distance=distance)
        out_values[t], out_indices[t] = value, index

    return kernel


@pytest.mark.parametrize("mode", ["offset", "rotate"])
def test_a_block_shuffle_moves_a_mixed_width_pair_whole(mode):
    block, distance = 128, 3
    values = np.random.default_rng(5).standard_normal(block)
    indices = np.arange(block, dtype=np.int32) * 7
    out_values, out_indices = np.zeros_like(values), np.zeros_like(indices)
    shuffle_pairs_kernel(mode)[1, block](values, indices, out_values, out_indices, distance)
    source = np.arange(block) + distance
    source = source % block if mode == "rotate" else np.where(source < block, source, np.arange(block))
    np.testing.assert_array_equal(out_values, values[source])
    np.testing.assert_array_equal(out_indices, indices[source])


@cuda.jit
def sums_and_squares_of_loaded_pairs(values, out):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(2))  # typed by the load
    s, sq = coop.reduce(
        block, (items[0] + items[1], items[0] * items[0] + items[1] * items[1]), binary_op=sum_and_squares
    )
    if cuda.threadIdx.x == 0:
        out[0] = s
        out[1] = sq


def test_a_tuple_of_a_loaded_thread_datas_items_reduces():
    values = np.arange(256, dtype=np.float64) / 64
    out = np.zeros(2)
    sums_and_squares_of_loaded_pairs[1, 128](values, out)
    np.testing.assert_allclose(out, [values.sum(), (values * values).sum()], rtol=1e-12)
