"""A prefix sum over an array much longer than one block's tile, in one block: a
loop over tiles whose scans carry a running total through CUB's block prefix
callback (`prefix_op`). Checked against NumPy's cumsum over the whole array."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS, TILES = 256, 4, 1000


class RunningTotal:
    """Called by the first warp with each tile's total; returns the sum of the
    tiles before it, which seeds the tile's scan. Each lane keeps its own copy."""

    def __init__(self, total):
        self.total = total

    def __call__(self, block_aggregate):
        before = self.total[0]
        self.total[0] = before + block_aggregate
        return before


@cuda.jit
def running_sum(values, sums, tiles):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    total = cuda.local.array(1, np.int64)
    total[0] = 0
    prefix = RunningTotal(total)
    for tile in range(tiles):
        offset = tile * THREADS * ITEMS
        coop.load(block, values, items, offset=offset, algorithm="transpose")
        running = coop.inclusive_sum(block, items, prefix_op=prefix)  # a fresh payload: items is unchanged
        coop.store(block, sums, running, offset=offset, algorithm="transpose")


def main():
    values = np.random.default_rng(7).integers(-1000, 1000, size=THREADS * ITEMS * TILES).astype(np.int64)
    sums = np.zeros_like(values)
    if not cuda.is_available():
        print(coop.explain(running_sum, values, sums, TILES, grid=1, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    scanned = cuda.to_device(sums)  # device arrays: no copy in and out around the launch
    running_sum[1, THREADS](cuda.to_device(values), scanned, TILES)
    scanned.copy_to_host(sums)
    np.testing.assert_array_equal(sums, np.cumsum(values))
    print(f"running prefix over {len(values)} values in {TILES} tiles equals numpy.cumsum; last = {sums[-1]}")


if __name__ == "__main__":
    main()
