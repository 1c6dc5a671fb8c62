"""The block a kernel declares it is written for, read from its untyped IR before any
launch: `coop.this_block(128)` in its body, or a kernel global made by
`coop.this_block((32, 4))`. coop.explain takes it when no block is given."""

from __future__ import annotations

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.groups import GroupDescriptor
from .._core.markers import marker_of
from ._groups import dim3
from ._ir import python_value


def block_of(kernel) -> tuple | None:
    """The one block shape the kernel's this_block calls declare, or None (none, or several)."""
    from numba_cuda_mlir.numba_cuda.compiler import run_frontend

    func_ir = run_frontend(kernel.py_func)
    found = set()
    for block in func_ir.blocks.values():
        for statement in block.body:
            value = getattr(statement, "value", None)
            if isinstance(value, (ir.Global, ir.FreeVar)) and isinstance(value.value, GroupDescriptor):
                declared = value.value.block_dim if value.value.kind == "block" else None
                found.add(dim3(declared) if declared is not None else None)
            elif isinstance(value, ir.Expr) and value.op == "call" and len(value.args) == 1:
                marker = marker_of(python_value(func_ir, value.func))
                if marker is not None and marker.name == "this_block":
                    found.add(dim3(python_value(func_ir, value.args[0])))
    found.discard(None)
    return found.pop() if len(found) == 1 else None
