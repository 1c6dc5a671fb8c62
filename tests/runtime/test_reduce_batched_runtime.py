"""Batched warp reductions in Python kernels, launched and compared with NumPy row reductions:
warps and logical warps of every width, more and fewer batches than lanes, both layouts,
built-in and Python operators, chained results, one logical warp alone. They need a CCCL
with cub::WarpReduceBatched (3.5): scripts/gpu-python.sh runs them again with the newest
CCCL carried (CUDA_COOP_CCCL_ROOT); with an older one they skip, and the bad-input catalogue
checks the refusal."""

import pathlib

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop._engine_session import engine

HAS_BATCHED = (pathlib.Path(engine().toolkit["cccl_include"]) / "cub/warp/warp_reduce_batched.cuh").is_file()
needs_batched = pytest.mark.skipif(not HAS_BATCHED, reason="the CCCL in use has no cub::WarpReduceBatched")

THREADS = 64


def batch_kernel(width, batches, layout, binary_op=None):
    per_lane = -(-batches // width)

    @cuda.jit
    def kernel(source, output, kept):
        warp = coop.this_warp().group_by(width)
        values = coop.load(coop.this_block(), source, coop.ThreadData(batches))
        result = coop.reduce_batched(warp, values, binary_op=binary_op, output_layout=layout)
        lane, group = cuda.threadIdx.x % width, cuda.threadIdx.x // width
        for i in range(per_lane):
            batch = lane + i * width if layout == "striped" else lane * per_lane + i
            if batch < batches:
                output[group * batches + batch] = result[i]
        coop.store(coop.this_block(), kept, values)

    return kernel


def row_reductions(source, width, batches, ufunc=np.add):
    rows = source.reshape(THREADS // width, width, batches)
    return ufunc.reduce(rows, axis=1).astype(source.dtype).ravel()


@needs_batched
@pytest.mark.parametrize("layout", ["striped", "blocked"])
@pytest.mark.parametrize("batches", [1, 4, 33])
@pytest.mark.parametrize("width", [1, 8, 32])
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_batches_reduce_like_row_sums(dtype, width, batches, layout):
    source = np.random.default_rng(width * 100 + batches).integers(-50, 50, size=THREADS * batches).astype(dtype)
    output = np.full((THREADS // width) * batches, -7, dtype)
    kept = np.zeros_like(source)
    batch_kernel(width, batches, layout)[1, THREADS](source, output, kept)
    np.testing.assert_array_equal(output, row_reductions(source, width, batches))
    np.testing.assert_array_equal(kept, source)


@needs_batched
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.uint64, np.float32, np.float16])
def test_other_dtypes(dtype):
    source = np.random.default_rng(1).integers(0, 3, size=THREADS * 3).astype(dtype)
    output = np.zeros((THREADS // 8) * 3, dtype)
    batch_kernel(8, 3, "striped")[1, THREADS](source, output, np.zeros_like(source))
    np.testing.assert_array_equal(output, row_reductions(source, 8, 3))


def larger(a, b):
    return max(a, b)


@needs_batched
@pytest.mark.parametrize(
    "binary_op, ufunc",
    [("min", np.minimum), ("max", np.maximum), ("bit_xor", np.bitwise_xor), (larger, np.maximum)],
    ids=["min", "max", "bit_xor", "python"],
)
def test_operators(binary_op, ufunc):
    source = np.random.default_rng(2).integers(-1000, 1000, size=THREADS * 5).astype(np.int32)
    output = np.zeros((THREADS // 32) * 5, np.int32)
    batch_kernel(32, 5, "striped", binary_op)[1, THREADS](source, output, np.zeros_like(source))
    np.testing.assert_array_equal(output, row_reductions(source, 32, 5, ufunc))


@cuda.jit
def feature_sums(samples, totals):
    warp = coop.this_warp()
    features = coop.load(warp, samples, coop.ThreadData(4))  # each warp's own 128 values
    sums = coop.reduce_batched(warp, features)
    if warp.rank() < 4:
        totals[(cuda.threadIdx.x // 32) * 4 + warp.rank()] = sums[0]


@needs_batched
def test_the_reference_example_sums_features_per_warp():
    samples = np.arange(2 * 128, dtype=np.float32)
    totals = np.zeros(8, np.float32)
    feature_sums[1, 64](samples, totals)
    # A warp's tile is blocked: lane l holds features 4l..4l+3 of its 128, so feature f is l*4 + f.
    expected = samples.reshape(2, 32, 4).sum(axis=1).ravel()
    np.testing.assert_array_equal(totals, expected)
