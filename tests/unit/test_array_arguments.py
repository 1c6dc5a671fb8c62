"""The rewrite of a kernel's array descriptors (_array_arguments.fold) on a small kernel in
the compiler's LLVM dialect: every use of an array's offset becomes 0; its sizes stay
runtime values, and so do its strides (the launcher reuses a kernel for arrays of any
layout) unless the argument is flagged C-contiguous, when they become the products of the
sizes inside them; a kernel whose parameter list is not one descriptor per array argument
is left as it was."""

import pytest

pytest.importorskip("numba_cuda_mlir")

from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir.lowering_utilities import context as mlir_context

from cuda.coop.numba_mlir import _array_arguments

# A kernel of one rank-2 array and one integer whose body reads every descriptor slot, so
# what the rewrite replaced shows in the operands of the stores.
KERNEL = """
module {{
  gpu.module @kernels {{
    llvm.func @kernel(%allocated: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size0: i64,
        %size1: i64, %stride0: i64, %stride1: i64, %count: i64)
        attributes {{gpu.kernel, numba_cuda_mlir.orig_arg_types = [{memref}, i64]}} {{
      %offset_used = llvm.add %offset, %count : i64
      %address = llvm.getelementptr %aligned[%offset_used] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      llvm.store %stride0, %address : i64, !llvm.ptr
      llvm.store %stride1, %allocated : i64, !llvm.ptr
      llvm.store %size0, %address : i64, !llvm.ptr
      llvm.store %size1, %address : i64, !llvm.ptr
      llvm.return
    }}
  }}
}}
"""


def folded(memref, flags=()):
    """(parameters replaced, the kernel's operations as text) after the rewrite, which a
    second call finds done."""
    with mlir_context.get_context():
        module = ir.Module.parse(KERNEL.format(memref=memref))
        gpu_module = next(iter(module.body))
        contiguous = {"kernel": flags}.get  # the flags of the kernel named `kernel`
        count = _array_arguments.fold(gpu_module, contiguous)
        assert _array_arguments.fold(gpu_module, contiguous) == 0, "a kernel is rewritten once"
        return count, [
            line.strip() for line in str(module).splitlines() if line.strip().startswith(("%", "llvm.store"))
        ]


def test_an_arrays_offset_reads_as_zero_and_its_strides_as_passed():
    count, lines = folded("memref<?x?xi32, strided<[?, ?], offset: ?>>")
    assert count == 1
    assert lines[0] == "%0 = llvm.mlir.constant(0 : i64) : i64"
    assert lines[1] == "%1 = llvm.add %0, %arg7 : i64"  # the offset
    assert lines[3:7] == [
        "llvm.store %arg5, %2 : i64, !llvm.ptr",
        "llvm.store %arg6, %arg0 : i64, !llvm.ptr",
        "llvm.store %arg3, %2 : i64, !llvm.ptr",
        "llvm.store %arg4, %2 : i64, !llvm.ptr",
    ]


def test_a_contiguous_arrays_strides_are_the_products_of_the_sizes_inside_them():
    count, lines = folded("memref<?x?xi32, strided<[?, ?], offset: ?>>", flags=(True, False))
    assert count == 3  # the offset and both strides
    assert lines[:3] == [
        "%0 = llvm.mlir.constant(0 : i64) : i64",
        "%1 = llvm.mlir.constant(1 : i64) : i64",
        "%2 = llvm.mul %1, %arg4 : i64",  # the outer stride: the inner extent
    ]
    assert lines[5:9] == [
        "llvm.store %2, %4 : i64, !llvm.ptr",  # stride0
        "llvm.store %1, %arg0 : i64, !llvm.ptr",  # stride1, the innermost
        "llvm.store %arg3, %4 : i64, !llvm.ptr",  # the sizes as passed
        "llvm.store %arg4, %4 : i64, !llvm.ptr",
    ]


def test_flags_for_another_number_of_arguments_fold_only_the_offsets():
    count, lines = folded("memref<?x?xi32, strided<[?, ?], offset: ?>>", flags=(True,))
    assert count == 1
    assert "llvm.store %arg5, %2 : i64, !llvm.ptr" in lines


@pytest.mark.parametrize(
    "memref",
    [
        "memref<?xi32, strided<[?], offset: ?>>",  # a descriptor of another rank than the parameters hold
        "i64",  # no array where the parameters hold a descriptor
    ],
)
def test_a_parameter_list_of_another_shape_is_left_alone(memref):
    count, lines = folded(memref)
    assert count == 0
    assert not any("llvm.mlir.constant" in line for line in lines)
