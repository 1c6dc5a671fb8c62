"""The cumulative sum along each row of a [rows, columns] float32 matrix, one block per row:
the block walks its row tile by tile (one 16-byte load per thread), each tile's inclusive sum
seeded by a `prefix_op` that carries the row's running total. Checked against NumPy's cumsum
in float64. benchmarks/workloads.py times the same kernel against torch.cumsum."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 256, 4


class RunningTotal:
    """Called by the first warp with each tile's total; returns the total of the row's tiles
    before it, which seeds the tile's scan."""

    def __init__(self, total):
        self.total = total

    def __call__(self, tile_total):
        before = self.total[0]
        self.total[0] = before + tile_total
        return before


def row_cumsum_kernel(threads, items):
    """The kernel for blocks of `threads` threads of `items` columns each; a row's length must
    be a multiple of threads * items."""
    tile = threads * items

    @cuda.jit
    def row_cumsum(matrix, sums, columns):
        block = coop.this_block()
        total = cuda.local.array(1, np.float32)
        total[0] = 0
        seed = RunningTotal(total)
        values = cuda.local.array(items, np.float32)
        for start in range(cuda.blockIdx.x * columns, (cuda.blockIdx.x + 1) * columns, tile):
            coop.load(block, matrix, values, offset=start, algorithm="vectorize")
            running = coop.inclusive_sum(block, values, prefix_op=seed)
            coop.store(block, sums, running, offset=start, algorithm="vectorize")

    return row_cumsum


def main(rows=64, columns=8 * THREADS * ITEMS):
    matrix = np.random.default_rng(11).standard_normal((rows, columns)).astype(np.float32)
    sums = np.zeros_like(matrix)
    kernel = row_cumsum_kernel(THREADS, ITEMS)
    if not cuda.is_available():
        print(coop.explain(kernel, matrix.ravel(), sums.ravel(), columns, grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    scanned = cuda.to_device(sums.ravel())  # device arrays: no copy in and out around the launch
    kernel[rows, THREADS](cuda.to_device(matrix.ravel()), scanned, columns)
    scanned.copy_to_host(sums.ravel())
    error = np.abs(sums - np.cumsum(matrix.astype(np.float64), axis=1)).max()
    assert error < 1e-3, error
    print(f"cumsum of {rows} rows of {columns}: max abs error {error:.2e} against float64 NumPy")


if __name__ == "__main__":
    main()
