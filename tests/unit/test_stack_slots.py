"""The hoist of a kernel's stack slots (_stack_slots.hoist) on a small kernel in the
compiler's LLVM dialect: the entry block's allocas of constant count move to its top, after
the constants they count with, in their order; an alloca of runtime count, slots of other
blocks and device functions stay where they are."""

import pytest

pytest.importorskip("numba_cuda_mlir")

from numba_cuda_mlir._mlir import ir
from numba_cuda_mlir.lowering_utilities import context as mlir_context

from cuda.coop.numba_mlir import _stack_slots

MODULE = """
module {
  gpu.module @kernels {
    llvm.func @provider(!llvm.ptr) -> i32
    llvm.func @kernel(%count: i64) attributes {gpu.kernel} {
      %zero = llvm.mlir.constant(0 : i32) : i32
      %items = llvm.mlir.constant(8 : index) : i64
      %array = llvm.alloca %items x f32 : (i64) -> !llvm.ptr
      %called = llvm.call @provider(%array) : (!llvm.ptr) -> i32
      %one = llvm.mlir.constant(1 : index) : i64
      %iterator = llvm.alloca %one x i64 : (i64) -> !llvm.ptr
      %record = llvm.alloca %one x !llvm.array<12 x i8> : (i64) -> !llvm.ptr
      %runtime = llvm.alloca %count x i8 : (i64) -> !llvm.ptr
      llvm.br ^next
    ^next:
      %later = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
      llvm.return
    }
    llvm.func @helper(%pointer: !llvm.ptr) {
      %called = llvm.call @provider(%pointer) : (!llvm.ptr) -> i32
      %one = llvm.mlir.constant(1 : index) : i64
      %slot = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
      llvm.return
    }
  }
}
"""


def operations(function) -> list[list[str]]:
    """Each block's operations, without their results' names and types."""
    return [
        [str(op).split(" = ", 1)[-1].rsplit(" : ", 1)[0] for op in block.operations] for block in function.regions[0]
    ]


def hoisted():
    """(slots moved, the kernel's blocks, the device function's blocks)."""
    with mlir_context.get_context():
        module = ir.Module.parse(MODULE)
        gpu_module = next(iter(module.body))
        moved = _stack_slots.hoist(gpu_module)
        functions = {
            ir.StringAttr(op.operation.attributes["sym_name"]).value: op
            for op in gpu_module.regions[0].blocks[0].operations
        }
        return moved, operations(functions["kernel"]), operations(functions["helper"])


def test_entry_slots_of_constant_count_move_to_the_top_in_their_order():
    moved, (entry, following), [helper] = hoisted()
    assert moved == 3
    assert entry[:5] == [
        "llvm.mlir.constant(8 : index)",
        "llvm.mlir.constant(1 : index)",
        "llvm.alloca %0 x f32",
        "llvm.alloca %1 x i64",
        "llvm.alloca %1 x !llvm.array<12 x i8>",
    ]
    assert entry[5] == "llvm.mlir.constant(0 : i32)"
    assert entry[6].startswith("llvm.call @provider")
    assert entry[7] == "llvm.alloca %arg0 x i8"  # a runtime count stays after what it may depend on
    assert following[0] == "llvm.alloca %1 x i32"  # another block's slot is not the entry's
    assert helper[0].startswith("llvm.call @provider")  # a device function is left as it is


def test_hoisting_twice_changes_nothing():
    with mlir_context.get_context():
        module = ir.Module.parse(MODULE)
        gpu_module = next(iter(module.body))
        _stack_slots.hoist(gpu_module)
        once = str(module)
        _stack_slots.hoist(gpu_module)
        assert str(module) == once
