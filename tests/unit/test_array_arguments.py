"""The rewrite of a kernel's array parameters (_array_arguments.fold) on small kernels in
the compiler's LLVM dialect: offsets become 0, a 'C' or 'F' array's strides the products
of the sizes inside them, an 'A' array keeps its strides, and a kernel the rewrite cannot
match exactly (another name, another parameter list) is left as it was."""

import pytest

pytest.importorskip("numba_cuda_mlir")

from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir.lowering_utilities import context as mlir_context

from cuda.coop.numba_mlir import _array_arguments

# A kernel of one rank-2 array and one integer whose body reads every descriptor slot, so
# what the rewrite replaced shows in the operands of the `sum` chain.
KERNEL = """
module {{
  gpu.module @kernels {{
    llvm.func @_Z6kernel{mangled}(%allocated: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size0: i64,
        %size1: i64, %stride0: i64, %stride1: i64, %count: i64)
        attributes {{gpu.kernel, numba_cuda_mlir.orig_arg_types = [{memref}, i64]}} {{
      %offset_used = llvm.add %offset, %count : i64
      %stride0_used = llvm.add %stride0, %count : i64
      %stride1_used = llvm.add %stride1, %count : i64
      %address = llvm.getelementptr %aligned[%offset_used] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      llvm.store %stride0_used, %address : i64, !llvm.ptr
      llvm.store %stride1_used, %allocated : i64, !llvm.ptr
      llvm.store %size0, %address : i64, !llvm.ptr
      llvm.store %size1, %address : i64, !llvm.ptr
      llvm.return
    }}
  }}
}}
"""
MEMREF = "memref<?x?xi32, strided<[?, ?], offset: ?>>"
MANGLED = {layout: f"5ArrayIiLi2E1{layout}7mutable7alignedEx" for layout in "CFA"}


def folded(layout, recorded_layout=None, mangled=None, memref=MEMREF):
    """(parameters no longer read, the kernel's body as text) after the rewrite."""
    with mlir_context.get_context():
        module = ir.Module.parse(KERNEL.format(mangled=MANGLED[layout], memref=memref))
        gpu_module = next(iter(module.body))
        recorded = (mangled or MANGLED[layout], ((recorded_layout or layout, 2), None))
        count = _array_arguments.fold(gpu_module, recorded)
        again = _array_arguments.fold(gpu_module, recorded)
        assert again == 0, "a kernel is rewritten once"
        return count, str(module)


def operands(body: str, result: str) -> str:
    """The text after `= llvm.add` on the line defining %result (block arguments are renamed %argN)."""
    line = next(line for line in body.splitlines() if line.strip().startswith(f"%{result} = llvm.add"))
    return line.split("llvm.add", 1)[1].split(":")[0].strip()


def body_lines(body: str) -> list[str]:
    return [line.strip() for line in body.splitlines() if line.strip().startswith("%")]


def test_a_c_array_reads_offset_zero_and_strides_from_its_sizes():
    count, body = folded("C")
    assert count == 3
    lines = body_lines(body)
    # constants 0 and 1 first, then stride0 = 1 * size1 (%arg4), before the kernel's own code
    assert lines[0] == "%0 = llvm.mlir.constant(0 : i64) : i64"
    assert lines[1] == "%1 = llvm.mlir.constant(1 : i64) : i64"
    assert lines[2] == "%2 = llvm.mul %1, %arg4 : i64"
    assert lines[3] == "%3 = llvm.add %0, %arg7 : i64"  # the offset
    assert lines[4] == "%4 = llvm.add %2, %arg7 : i64"  # stride0
    assert lines[5] == "%5 = llvm.add %1, %arg7 : i64"  # stride1


def test_an_f_array_has_unit_stride_in_its_first_dimension():
    count, body = folded("F")
    assert count == 3
    lines = body_lines(body)
    assert lines[2] == "%2 = llvm.mul %1, %arg3 : i64"  # stride1 = 1 * size0
    assert lines[4] == "%4 = llvm.add %1, %arg7 : i64"  # stride0
    assert lines[5] == "%5 = llvm.add %2, %arg7 : i64"  # stride1


def test_an_a_array_keeps_its_strides():
    count, body = folded("A")
    assert count == 1
    lines = body_lines(body)
    assert "llvm.mul" not in body
    assert lines[2] == "%2 = llvm.add %0, %arg7 : i64"  # the offset only
    assert lines[3] == "%3 = llvm.add %arg5, %arg7 : i64"
    assert lines[4] == "%4 = llvm.add %arg6, %arg7 : i64"


def test_a_kernel_of_other_argument_types_is_left_alone():
    count, body = folded("C", mangled=MANGLED["A"])
    assert count == 0
    assert "llvm.mlir.constant" not in body


@pytest.mark.parametrize(
    "memref",
    [
        "memref<?xi32, strided<[?], offset: ?>>",  # a rank the recorded type does not have
        "i64",  # not an array where one was recorded
    ],
)
def test_a_parameter_list_of_another_shape_is_left_alone(memref):
    count, body = folded("C", memref=memref)
    assert count == 0
    assert "llvm.mlir.constant" not in body
