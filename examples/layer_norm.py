"""Layer norm of each row of a [rows, columns] float32 matrix, one block per row, in one pass
over memory: each thread loads its items striped (item i of thread t is column t + i x threads:
every load instruction of a warp reads 128 contiguous bytes), sums them up, the block combines
the threads' sums in one tuple reduction (coop.reduce of a tuple with a Python operator, its
result in every thread), and each thread normalizes its items, scales and shifts them by gamma
and beta and stores them. Checked against NumPy in float64.

Three ways to get the row's mean and variance, `statistics=`, the first two from that one
reduction:
- "welford" (main's): each thread's (count, mean, m2) triple, combined with Chan's formula.
  Robust for any row.
- "shifted": each thread's sums of (x - x0) and (x - x0)^2 about the row's first value x0, a
  pair combined by adding. As accurate as Welford when x0 is within a few standard deviations
  of the mean (it is a sample of the row, so it is unless the row has outliers); cheaper
  where a block is wide, because the block folds its warps' summaries with additions rather
  than divisions (on an H200, rows of 4096, 512 threads: 0.069 ms against 0.083 ms; rows of
  1024, 128 threads: 0.068 against 0.069 ms).
- "two_pass": the row's mean first (coop.sum), then the sum of squares about it (coop.sum
  again), as Triton's layer norm computes them: two reductions instead of one, no first
  value to load, and as robust as Welford.
benchmarks/workloads.py times "shifted" and "two_pass" against torch.nn.functional.layer_norm
and Triton."""

import math

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 8  # a row of 1024
EPSILON = 1e-5


# Each statistics is a device function giving the row's mean and variance in every thread.
# The one-reduction forms are three functions each: a thread's summary of its items, the
# operator that combines two summaries (coop.reduce compiles it), and the row's mean and
# variance from the block's summary. The kernel picks its statistics when it is made, so it
# holds no branch between them.


@cuda.jit(device=True)
def welford_summary(values, first):
    """(count, mean, m2) of a thread's items, in two passes over them."""
    total = np.float32(0)
    for i in range(len(values)):
        total += values[i]
    count = np.float32(len(values))
    mean, m2 = total / count, np.float32(0)
    for i in range(len(values)):
        m2 += (values[i] - mean) * (values[i] - mean)
    return count, mean, m2


def chan(left, right):
    """Two (count, mean, m2) summaries as one: Chan, Golub and LeVeque's pairwise update.
    Every thread holds items, so no count is 0."""
    count = left[0] + right[0]
    delta = right[1] - left[1]
    share = right[0] / count
    return count, left[1] + delta * share, left[2] + right[2] + delta * delta * left[0] * share


@cuda.jit(device=True)
def welford_moments(summary, first, width):
    return summary[1], summary[2] / width


@cuda.jit(device=True)
def shifted_summary(values, first):
    """The sums of a thread's items less the row's first value, and of their squares."""
    total, squares = np.float32(0), np.float32(0)
    for i in range(len(values)):
        shifted = values[i] - first
        total += shifted
        squares += shifted * shifted
    return total, squares


def add_pairs(left, right):
    return left[0] + right[0], left[1] + right[1]


@cuda.jit(device=True)
def shifted_moments(summary, first, width):
    offset = summary[0] / width
    return first + offset, summary[1] / width - offset * offset


def one_reduction(summarize, combine, moments):
    """The row's mean and variance from one tuple reduction of the threads' summaries."""

    @cuda.jit(device=True)
    def row_moments(block, matrix, row, values, width):
        first = matrix[row]
        summary = coop.reduce(block, summarize(values, first), binary_op=combine)  # the row's, in every thread
        return moments(summary, first, width)

    return row_moments


@cuda.jit(device=True)
def two_pass_moments(block, matrix, row, values, width):
    """The row's mean from one block sum, then the sum of squares about it from a second."""
    mean = coop.sum(block, values) / width  # in every thread of the block
    squares = np.float32(0)
    for i in range(len(values)):
        squares += (values[i] - mean) * (values[i] - mean)
    return mean, coop.sum(block, squares) / width


# statistics= -> the device function giving the row's (mean, variance) in every thread
STATISTICS = {
    "welford": one_reduction(welford_summary, chan, welford_moments),
    "shifted": one_reduction(shifted_summary, add_pairs, shifted_moments),
    "two_pass": two_pass_moments,
}


def layer_norm_kernel(threads, items, statistics="welford"):
    """The kernel for rows of threads * items columns, a block of `threads` per row."""
    if statistics not in STATISTICS:
        raise ValueError(f"statistics={statistics!r}: one of {sorted(STATISTICS)}")
    row_moments = STATISTICS[statistics]
    columns = threads * items
    width, epsilon = np.float32(columns), np.float32(EPSILON)

    @cuda.jit
    def layer_norm(matrix, gamma, beta, result):
        block = coop.this_block()
        row = cuda.blockIdx.x * columns
        values = cuda.local.array(items, np.float32)
        coop.load(block, matrix, values, offset=row, algorithm="striped")
        mean, variance = row_moments(block, matrix, row, values, width)
        inverse_deviation = np.float32(1) / math.sqrt(variance + epsilon)
        scale, shift = cuda.local.array(items, np.float32), cuda.local.array(items, np.float32)
        coop.load(block, gamma, scale, algorithm="striped")  # from L2 after the first rows
        coop.load(block, beta, shift, algorithm="striped")
        for i in range(items):
            values[i] = (values[i] - mean) * inverse_deviation * scale[i] + shift[i]
        coop.store(block, result, values, offset=row, algorithm="striped")

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
    kernels = {statistics: layer_norm_kernel(THREADS, ITEMS, statistics) for statistics in STATISTICS}
    if not cuda.is_available():
        print(coop.explain(kernels["welford"], matrix.ravel(), gamma, beta, result.ravel(), grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    on_device = [cuda.to_device(array) for array in (matrix.ravel(), gamma, beta)]  # no copies around launches
    normalized = cuda.to_device(result.ravel())
    for statistics, kernel in kernels.items():
        kernel[rows, THREADS](*on_device, normalized)
        normalized.copy_to_host(result.ravel())
        error = np.abs(result - reference(matrix, gamma, beta)).max()
        assert error < 1e-4, (statistics, error)
        print(f"layer norm ({statistics}) of {rows} rows of {columns}: max abs error {error:.2e} against float64 NumPy")


if __name__ == "__main__":
    main()
