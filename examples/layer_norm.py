"""Layer norm of each row of a [rows, columns] float32 matrix, one block per row, in one pass
over memory: each thread loads its items with vector loads (and gamma's and beta's ahead of
the reduction, so their latency hides behind it) and sums up its items as a (count, mean, m2)
triple, the block combines the threads' triples with Chan's formula in one
tuple reduction (coop.reduce of a tuple with a Python operator, its result in every thread),
and each thread normalizes its items, scales and shifts them by gamma and beta and stores
them. Checked against NumPy in float64. benchmarks/workloads.py times the same kernel
against torch.nn.functional.layer_norm."""

import math

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 8  # two 16-byte loads per thread: a row of 1024
EPSILON = 1e-5


def chan(left, right):
    """Two (count, mean, m2) summaries as one: Chan, Golub and LeVeque's pairwise update.
    Every thread holds items, so no count is 0."""
    count = left[0] + right[0]
    delta = right[1] - left[1]
    share = right[0] / count
    return count, left[1] + delta * share, left[2] + right[2] + delta * delta * left[0] * share


def layer_norm_kernel(threads, items):
    """The kernel for rows of threads * items columns, a block of `threads` per row."""
    columns = threads * items
    count = np.float32(items)
    epsilon = np.float32(EPSILON)

    @cuda.jit
    def layer_norm(matrix, gamma, beta, result):
        block = coop.this_block()
        row = cuda.blockIdx.x * columns
        values = cuda.local.array(items, np.float32)
        scale, shift = cuda.local.array(items, np.float32), cuda.local.array(items, np.float32)
        coop.load(block, matrix, values, offset=row, algorithm="vectorize")
        coop.load(block, gamma, scale, algorithm="vectorize")  # loaded ahead: their latency hides
        coop.load(block, beta, shift, algorithm="vectorize")  # behind the reduction's
        total = values[0]
        for i in range(1, items):  # this thread's mean and m2, in two passes over its items
            total += values[i]
        mean, m2 = total / count, np.float32(0)
        for i in range(items):
            m2 += (values[i] - mean) * (values[i] - mean)
        _, mean, m2 = coop.reduce(block, (count, mean, m2), binary_op=chan)  # the row's, in every thread
        inverse_deviation = np.float32(1) / math.sqrt(m2 / np.float32(columns) + epsilon)
        for i in range(items):
            values[i] = (values[i] - mean) * inverse_deviation * scale[i] + shift[i]
        coop.store(block, result, values, offset=row, algorithm="vectorize")

    return layer_norm


def reference(matrix, gamma, beta):
    matrix = matrix.astype(np.float64)
    mean = matrix.mean(axis=1, keepdims=True)
    variance = matrix.var(axis=1, keepdims=True)
    return (matrix - mean) / np.sqrt(variance + EPSILON) * gamma + beta


def main(rows=64):
    rng = np.random.default_rng(5)
    columns = THREADS * ITEMS
    matrix = (rng.standard_normal((rows, columns)) * 3 + 10).astype(np.float32)  # a mean far from 0
    gamma = rng.uniform(0.5, 1.5, columns).astype(np.float32)
    beta = rng.standard_normal(columns).astype(np.float32)
    result = np.zeros_like(matrix)
    kernel = layer_norm_kernel(THREADS, ITEMS)
    if not cuda.is_available():
        print(coop.explain(kernel, matrix.ravel(), gamma, beta, result.ravel(), grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    kernel[rows, THREADS](matrix.ravel(), gamma, beta, result.ravel())
    cuda.synchronize()
    error = np.abs(result - reference(matrix, gamma, beta)).max()
    assert error < 1e-4, error
    print(f"layer norm of {rows} rows of {columns}: max abs error {error:.2e} against float64 NumPy")


if __name__ == "__main__":
    main()
