"""A launch numba-cuda-mlir's launcher would serve with a compile made for arrays of another
layout (its loaded kernels are keyed by each array's dtype and rank only) is refused where
that compile reads a C-contiguous array as one run (_dispatch.check_reused_layouts): the
error names the kernel, the argument and both types. Not refused: a kernel whose
cooperative calls take no device array, a compile made for a view (it reads every array
through its strides), another dtype or rank (the launcher compiles anew), and kernels
without cooperative calls."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir._dispatch import check_reused_layouts
from cuda.coop.numba_mlir._explain import _capability

ITEMS = 4


@pytest.fixture(autouse=True)
def sm_90():
    _capability()  # compiles target sm_90 without a GPU


def array(layout, ndim=1, dtype=types.float32):
    return types.Array(dtype, ndim, layout)


@cuda.jit
def copy_tile(source, destination):
    block = coop.this_block(128)
    items = coop.ThreadData(ITEMS)
    coop.load(block, source, items)
    coop.store(block, destination, items)


@cuda.jit
def sum_of_indexes(source, totals):
    block = coop.this_block(128)
    total = coop.sum(block, np.float32(source[cuda.threadIdx.x]))
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total


@cuda.jit
def plain_copy(source, destination):
    i = cuda.grid(1)
    if i < source.shape[0]:
        destination[i] = source[i]


def test_a_view_after_a_contiguous_compile_that_reads_it_as_one_run_is_refused():
    copy_tile.compile((array("C"), array("C")))
    with pytest.raises(coop.InvalidArgumentError) as refused:
        check_reused_layouts(copy_tile, (array("A"), array("C")))
    message = str(refused.value)
    assert "kernel 'copy_tile'" in message and "argument 'source'" in message
    assert "array(float32, 1d, A)" in message and "array(float32, 1d, C)" in message
    assert "cuda.jit(kernel.py_func)" in message


def test_what_the_launcher_would_not_reuse_or_reads_through_strides_is_not_refused():
    copy_tile.compile((array("C"), array("C")))
    check_reused_layouts(copy_tile, (array("C", dtype=types.int32), array("C", dtype=types.int32)))  # another dtype
    check_reused_layouts(copy_tile, (array("A", ndim=2), array("C")))  # another rank
    sum_of_indexes.compile((array("C"), array("C")))
    check_reused_layouts(sum_of_indexes, (array("A"), array("C")))  # no device array in a cooperative call
    plain_copy.compile((array("C"), array("C")))
    check_reused_layouts(plain_copy, (array("A"), array("A")))  # no cooperative call


def test_a_contiguous_array_after_a_view_compile_is_not_refused():
    copy_view = cuda.jit(copy_tile.py_func)  # a kernel of its own, first compiled for views
    copy_view.compile((array("A"), array("A")))
    check_reused_layouts(copy_view, (array("C"), array("C")))
