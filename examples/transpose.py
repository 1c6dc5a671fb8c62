"""A matrix transpose, one 32 x 32 tile per block: each thread loads four elements of its
tile (a 2-D view of the matrix, read in C order), an exchange scatters every element to its
transposed place in the tile and hands it back striped, and a striped store writes the
transposed tile with consecutive threads on consecutive addresses (coalesced). Prints the
plans (no GPU needed), then launches and checks the transpose where a GPU exists."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

TILE = 32  # a tile is TILE x TILE elements
THREADS = 256
ITEMS = TILE * TILE // THREADS  # elements per thread


@cuda.jit
def transpose(matrix, transposed):
    block = coop.this_block()
    row, column = cuda.blockIdx.y * TILE, cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS)
    coop.load(block, matrix[row : row + TILE, column : column + TILE], items)  # blocked: 4 neighbours in a row
    ranks = coop.ThreadData(ITEMS, dtype=np.int32)
    for i in range(ITEMS):
        position = cuda.threadIdx.x * ITEMS + i  # (position // TILE, position % TILE) in the tile
        ranks[i] = (position % TILE) * TILE + position // TILE  # where it goes in the transposed tile
    scattered = coop.exchange(block, items, mode="scatter_to_striped", ranks=ranks)
    coop.store(block, transposed[column : column + TILE, row : row + TILE], scattered, algorithm="striped")


def main(rows=96, columns=64):
    matrix = np.arange(rows * columns, dtype=np.float32).reshape(rows, columns)
    transposed = np.zeros((columns, rows), dtype=np.float32)
    grid = (columns // TILE, rows // TILE)
    print(coop.explain(transpose, matrix, transposed, grid=grid, block=THREADS))
    if not cuda.is_available():
        print("no GPU here: planned, generated, compiled and linked; not launched")
        return
    moved = cuda.to_device(transposed)  # device arrays: no copy in and out around the launch
    transpose[grid, THREADS](cuda.to_device(matrix), moved)
    moved.copy_to_host(transposed)
    np.testing.assert_array_equal(transposed, matrix.T)
    print("launched on the GPU: transpose verified")


if __name__ == "__main__":
    main()
