"""Softmax of each row of a matrix, one block per row: a block max, then a block
sum of the exponentials (coop.reduce and coop.sum, whose results every thread
gets), checked against NumPy. benchmarks/workloads.py times the same kernel against
torch.softmax and Triton.

The exponentials are CUDA's fast ones (libdevice.fast_expf, C++'s __expf: one ex2.approx,
as Triton's tl.exp compiles): their error is 2 ulp plus a part that grows with |x|, small
here since every argument is at most 0 once the row's max is subtracted (the check below
holds the result to 1e-6 of float64 NumPy). math.exp is the IEEE one, with a slow path per
item: 415 SASS instructions for this kernel at 128 x 8 against 237. Each item is multiplied
by the total's reciprocal, one division per thread instead of one per item."""

import numpy as np
from numba_cuda_mlir import cuda
from numba_cuda_mlir.cuda import libdevice

from cuda import coop

THREADS, ITEMS = 128, 4


def row_softmax_kernel(threads, items):
    """The kernel for rows of threads * items columns, a block of `threads` per row."""
    columns = threads * items

    @cuda.jit
    def row_softmax(matrix, result):
        block = coop.this_block()
        row = cuda.blockIdx.x * columns
        values = coop.ThreadData(items)
        # striped (item i of thread t is column t + i x threads): each warp load reads 128 contiguous
        # bytes, faster here than 16-byte vector loads; the order of a row's items does not matter to
        # a softmax
        coop.load(block, matrix, values, algorithm="striped", offset=row)
        largest = coop.reduce(block, values, binary_op="max")  # in every thread of the block
        for i in range(items):
            values[i] = libdevice.fast_expf(values[i] - largest)
        inverse = np.float32(1.0) / coop.sum(block, values)
        for i in range(items):
            values[i] = values[i] * inverse
        coop.store(block, result, values, algorithm="striped", offset=row)

    return row_softmax


def main(rows=64):
    columns = THREADS * ITEMS
    matrix = np.random.default_rng(3).standard_normal((rows, columns)).astype(np.float32)
    result = np.zeros_like(matrix)
    row_softmax = row_softmax_kernel(THREADS, ITEMS)
    if not cuda.is_available():
        print(coop.explain(row_softmax, matrix.ravel(), result.ravel(), grid=rows, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    normalized = cuda.to_device(result.ravel())  # device arrays: no copy in and out around the launch
    row_softmax[rows, THREADS](cuda.to_device(matrix.ravel()), normalized)
    normalized.copy_to_host(result.ravel())
    shifted = np.exp(matrix.astype(np.float64) - matrix.max(axis=1, keepdims=True))
    expected = shifted / shifted.sum(axis=1, keepdims=True)
    error = np.abs(result - expected).max()
    assert error < 1e-6, error
    print(f"softmax of {rows} rows of {columns}: max abs error {error:.2e} against float64 NumPy")


if __name__ == "__main__":
    main()
