"""Runtime checks of the hardening fixes: a scan's fresh result beside its unchanged input, operators
and prefix_op classes defined inside functions, and the participation rule's
documented pattern (every thread calls the collective; a partial tile says so with
valid_items instead of a branch)."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop


@cuda.jit
def scan_into_a_fresh_result(source, scanned, kept):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    out = coop.inclusive_sum(block, items)
    coop.store(block, scanned, out)
    coop.store(block, kept, items)


def test_a_scans_fresh_result_leaves_the_input_unchanged():
    source = np.arange(512, dtype=np.int32) % 7
    scanned, kept = np.zeros_like(source), np.zeros_like(source)
    scan_into_a_fresh_result[1, 128](source, scanned, kept)
    cuda.synchronize()
    np.testing.assert_array_equal(scanned, np.cumsum(source))
    np.testing.assert_array_equal(kept, source)


def make_kernels():
    """Operators and a prefix_op class as a test or a notebook writes them: local to a function."""

    def pick(a, b, first):
        return a if first else b

    def maximum(a, b):  # calls a helper that is a closure variable too
        return pick(a, b, a > b)

    class RunningTotal:
        def __init__(self, total):
            self.total = total

        def __call__(self, block_aggregate):
            before = self.total[0]
            self.total[0] = before + block_aggregate
            return before

    @cuda.jit
    def reduce_and_carry(source, reduced, carried, tiles):
        block = coop.this_block()
        items = coop.ThreadData(2)
        total = cuda.local.array(1, np.int64)
        total[0] = 0
        prefix = RunningTotal(total)
        for tile in range(tiles):
            coop.load(block, source, items, offset=tile * 256)
            result = coop.reduce(block, items, binary_op=maximum)
            if cuda.threadIdx.x == 0:
                reduced[tile] = result
            running = coop.inclusive_sum(block, items, prefix_op=prefix)
            coop.store(block, carried, running, offset=tile * 256)

    return reduce_and_carry


def test_operators_and_prefix_ops_defined_in_a_function():
    kernel = make_kernels()
    tiles = 3
    source = (np.arange(256 * tiles) % 11 - 5).astype(np.int64)
    reduced = np.zeros(tiles, np.int64)
    carried = np.zeros_like(source)
    kernel[1, 128](source, reduced, carried, tiles)
    cuda.synchronize()
    np.testing.assert_array_equal(reduced, source.reshape(tiles, 256).max(axis=1))
    np.testing.assert_array_equal(carried, np.cumsum(source))


@cuda.jit
def partial_sums(values, sums, n):
    """The participation rule's pattern: every thread of the block calls the
    collective; the last, partial tile says how many items are real with valid_items
    (rather than `if index < n:` around the call, which would hang or corrupt)."""
    block = coop.this_block()
    tile = cuda.blockIdx.x * 128
    valid = min(128, n - tile)
    value = values[tile + cuda.threadIdx.x] if cuda.threadIdx.x < valid else 0
    total = coop.sum(block, value, valid_items=valid)
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total


def test_partial_tile_with_valid_items_instead_of_a_branch():
    n = 1000
    values = np.arange(n, dtype=np.int32)
    sums = np.zeros(8, np.int32)
    partial_sums[8, 128](values, sums, n)
    cuda.synchronize()
    padded = np.zeros(1024, np.int32)
    padded[:n] = values
    np.testing.assert_array_equal(sums, padded.reshape(8, 128).sum(axis=1))
