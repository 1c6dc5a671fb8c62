"""The 16 largest values of each row of a matrix and where they are, one block per row:
coop.topk_max_pairs selects them (with their column indices) in one pass, unordered, in
the first 16 positions of the block's tile, which the block stores. Checked against
NumPy's partition of each row."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 256, 8
COLUMNS = THREADS * ITEMS
K = 16


@cuda.jit
def row_topk(matrix, best, where):
    block = coop.this_block()
    row = cuda.blockIdx.x
    values = coop.ThreadData(ITEMS)
    coop.load(block, matrix, values, algorithm="warp_transpose", offset=row * COLUMNS)
    columns = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        columns[i] = cuda.threadIdx.x * ITEMS + i
    chosen, found = coop.topk_max_pairs(block, values, columns, k=K)
    coop.store(block, best, chosen, offset=row * K, valid_items=K)
    coop.store(block, where, found, offset=row * K, valid_items=K)


def main(rows=512):
    matrix = np.random.default_rng(5).standard_normal((rows, COLUMNS)).astype(np.float32)
    best, where = np.zeros((rows, K), np.float32), np.zeros((rows, K), np.int32)
    if not cuda.is_available():
        print(coop.explain(row_topk, matrix.ravel(), best.ravel(), where.ravel(), grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    outputs = [cuda.to_device(array.ravel()) for array in (best, where)]  # no copies around the launch
    row_topk[rows, THREADS](cuda.to_device(matrix.ravel()), *outputs)
    for host, on_device in zip((best, where), outputs):
        on_device.copy_to_host(host.ravel())
    expected = np.sort(np.partition(matrix, COLUMNS - K, axis=1)[:, -K:], axis=1)
    np.testing.assert_array_equal(np.sort(best, axis=1), expected)
    np.testing.assert_array_equal(np.take_along_axis(matrix, where, axis=1), best)  # each index with its value
    print(f"top {K} of each of {rows} rows of {COLUMNS}: the values and their columns, as NumPy's partition")


if __name__ == "__main__":
    main()
