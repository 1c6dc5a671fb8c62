"""Kernels of the neighbours runtime tests (adjacent difference, discontinuity), compiled for sm_90
without a GPU: each reaches a cubin through the planner and calls the CUB member function (or
the flags adapter's method) its options select."""

import importlib.util
import pathlib

import numpy as np
import pytest

from cuda import coop

_PATH = pathlib.Path(__file__).parents[1] / "runtime" / "test_neighbours_runtime.py"
_SPEC = importlib.util.spec_from_file_location("neighbours_kernels", _PATH)
kernels = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(kernels)


def cub_calls(explanation):
    return [
        line.split("cub: ", 1)[1]
        for plan in explanation.plans
        for line in plan.describe().splitlines()
        if line.startswith("cub: ")
    ]


@pytest.mark.parametrize(
    ("direction", "with_neighbour", "with_count", "method"),
    [
        ("left", False, False, "SubtractLeft"),
        ("left", True, False, "SubtractLeft"),
        ("left", False, True, "SubtractLeftPartialTile"),
        ("left", True, True, "SubtractLeftPartialTile"),
        ("right", False, False, "SubtractRight"),
        ("right", True, False, "SubtractRight"),
        ("right", False, True, "SubtractRightPartialTile"),
    ],
)
def test_each_overload_of_the_difference_compiles(direction, with_neighbour, with_count, method):
    source = np.zeros(kernels.TILE, np.float32)
    kernel = kernels.difference_kernel(direction, with_neighbour, with_count, np.float32)
    explanation = coop.explain(kernel, source, source, source, np.int32(0), source[:1], grid=1, block=kernels.BLOCK)
    assert cub_calls(explanation) == [f"::cub::BlockAdjacentDifference<float, 8, 4, 2>::{method}"]


@pytest.mark.parametrize("dtype", kernels.DIFFERENCE_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_every_difference_dtype_compiles(dtype):
    source = np.zeros(kernels.TILE, dtype)
    kernel = kernels.difference_kernel("left", True, False, dtype)
    explanation = coop.explain(kernel, source, source, source, np.int32(0), source[:1], grid=1, block=kernels.BLOCK)
    assert len(explanation.plans) == 1


@pytest.mark.parametrize(
    "mode, method", [("heads", "FlagHeads"), ("tails", "FlagTails"), ("heads_and_tails", "FlagHeadsAndTails")]
)
@pytest.mark.parametrize("with_boundary", [False, True])
@pytest.mark.parametrize("flag_op", [None, kernels.different], ids=["default", "python"])
def test_each_mode_of_the_flags_compiles(mode, method, with_boundary, flag_op):
    source = np.zeros(kernels.TILE, np.uint64)
    flags = np.zeros(kernels.TILE, np.int32)
    kernel = kernels.flags_kernel(mode, with_boundary, flag_op)
    explanation = coop.explain(kernel, source, flags, flags, flags, source, source[:2], grid=1, block=kernels.THREADS)
    if with_boundary and mode == "heads_and_tails":
        method = "FlagHeadsAndTailsWithBoth"
    (call,) = [call for call in cub_calls(explanation) if "Discontinuity" in call]
    assert call == f"::cub::BlockDiscontinuity<::cuda::std::uint64_t, 64, 1, 1>::{method}"


def test_the_delta_encoder_and_the_run_labels_compile():
    source = np.zeros(4096, np.int32)
    assert len(coop.explain(kernels.delta_encode, source, source, grid=8, block=128).plans) == 3


def test_a_difference_operator_that_is_not_associative_is_refused_in_a_reduction():
    import operator

    from numba_cuda_mlir import cuda

    @cuda.jit
    def kernel(values, out):
        block = coop.this_block()
        items = coop.load(block, values, coop.ThreadData(2))
        out[0] = coop.reduce(block, items, binary_op=operator.sub)

    source = np.zeros(256, np.int32)
    with pytest.raises(coop.CoopError, match="difference"):
        coop.explain(kernel, source, source, grid=1, block=128)


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64], ids=["bool", "complex64"])
def test_runtime_neighbours_of_bool_and_complex_cross_the_abi(dtype):
    source, flags = np.zeros(kernels.TILE, dtype), np.zeros(kernels.TILE, np.int32)
    kernel = kernels.flags_kernel("heads_and_tails", True, None)
    explanation = coop.explain(kernel, source, flags, flags, flags, source, source[:2], grid=1, block=kernels.THREADS)
    assert any(call.endswith("::FlagHeadsAndTailsWithBoth") for call in cub_calls(explanation))
