"""Softmax of each row of a matrix, one block per row: a block max, then a block
sum of the exponentials (coop.reduce and coop.sum, whose results every thread
gets), checked against NumPy."""

import math

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 4
COLUMNS = THREADS * ITEMS


@cuda.jit
def row_softmax(matrix, result):
    block = coop.this_block()
    row = cuda.blockIdx.x * COLUMNS
    values = coop.ThreadData(ITEMS)
    coop.load(block, matrix, values, algorithm="transpose", offset=row)
    largest = coop.reduce(block, values, binary_op="max")  # in every thread of the block
    for i in range(ITEMS):
        values[i] = math.exp(values[i] - largest)
    total = coop.sum(block, values)
    for i in range(ITEMS):
        values[i] = values[i] / total
    coop.store(block, result, values, algorithm="transpose", offset=row)


def main(rows=64):
    matrix = np.random.default_rng(3).standard_normal((rows, COLUMNS)).astype(np.float32)
    result = np.zeros_like(matrix)
    if not cuda.is_available():
        print(coop.explain(row_softmax, matrix.ravel(), result.ravel(), grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    row_softmax[rows, THREADS](matrix.ravel(), result.ravel())
    cuda.synchronize()
    shifted = np.exp(matrix.astype(np.float64) - matrix.max(axis=1, keepdims=True))
    expected = shifted / shifted.sum(axis=1, keepdims=True)
    error = np.abs(result - expected).max()
    assert error < 1e-6, error
    print(f"softmax of {rows} rows of {COLUMNS}: max abs error {error:.2e} against float64 NumPy")


if __name__ == "__main__":
    main()
