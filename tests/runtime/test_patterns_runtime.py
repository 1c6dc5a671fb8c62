"""The kernels of the patterns guide (docs/guide/patterns.rst), launched and compared with
NumPy: stream compaction across blocks, a scan across tiles, a softmax per row."""

import math

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop


@cuda.jit
def compact_positive(values, out, count):
    block = coop.this_block()
    items = coop.load(block, values, coop.ThreadData(4), offset=cuda.blockIdx.x * 512)
    keep = coop.ThreadData(4, dtype=np.int32)
    for i in range(4):
        keep[i] = 1 if items[i] > 0 else 0
    kept = coop.ThreadData(1, dtype=np.int32)
    position = coop.exclusive_sum(block, keep, aggregate_output=kept)
    base = cuda.shared.array(1, np.int32)
    if cuda.threadIdx.x == 0:
        base[0] = cuda.atomic.add(count, 0, kept[0])
    cuda.syncthreads()
    for i in range(4):
        if keep[i]:
            out[base[0] + position[i]] = items[i]


def test_stream_compaction_keeps_every_positive_value_in_tile_order():
    values = np.random.default_rng(0).integers(-5, 5, 8 * 512).astype(np.int32)
    out = np.zeros_like(values)
    count = np.zeros(1, np.int32)
    compact_positive[8, 128](values, out, count)
    cuda.synchronize()
    kept = values[values > 0]
    assert count[0] == kept.size
    np.testing.assert_array_equal(np.sort(out[: kept.size]), np.sort(kept))


@cuda.jit(device=True)
def add_to_running(state, block_aggregate):
    before = state[0]
    state[0] = before + block_aggregate
    return before


carry = coop.StatefulFunction(add_to_running, np.int64)


@cuda.jit
def cumsum_in_one_block(values, sums, tiles):
    block = coop.this_block()
    running = coop.ThreadData(1, dtype=np.int64)
    running[0] = 0
    for tile in range(tiles):
        items = coop.load(block, values, coop.ThreadData(4), offset=tile * 512)
        scanned = coop.inclusive_sum(block, items, running, prefix_op=carry)
        coop.store(block, sums, scanned, offset=tile * 512)


def test_a_scan_across_tiles_is_the_cumulative_sum():
    values = np.random.default_rng(2).integers(-100, 100, 10 * 512).astype(np.int64)
    sums = np.zeros_like(values)
    cumsum_in_one_block[1, 128](values, sums, 10)
    cuda.synchronize()
    np.testing.assert_array_equal(sums, np.cumsum(values))


@cuda.jit
def softmax_rows(x, y):
    block = coop.this_block()
    row = cuda.blockIdx.x * 512
    items = coop.load(block, x, coop.ThreadData(4), offset=row)
    largest = coop.reduce(block, items, binary_op="max")
    for i in range(4):
        items[i] = math.exp(items[i] - largest)
    total = coop.sum(block, items)
    for i in range(4):
        items[i] = items[i] / total
    coop.store(block, y, items, offset=row)


def test_softmax_per_row():
    x = np.random.default_rng(1).standard_normal(16 * 512).astype(np.float32)
    y = np.zeros_like(x)
    softmax_rows[16, 128](x, y)
    cuda.synchronize()
    rows = x.reshape(16, 512).astype(np.float64)
    expected = np.exp(rows - rows.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.reshape(16, 512), expected, rtol=1e-5, atol=1e-7)
