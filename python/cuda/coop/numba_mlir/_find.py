"""Stage 1, find: the statements that call cuda.coop markers."""

from __future__ import annotations

import dataclasses

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.groups import GroupDescriptor
from .._core.markers import Marker, marker_of
from ._ir import definition, python_value


@dataclasses.dataclass
class Site:
    label: int  # block label
    statement: ir.Assign  # target = marker(...)
    marker: Marker

    @property
    def call(self) -> ir.Expr:
        return self.statement.value


GROUP_BY = Marker("group_by", "groups", True)
HOST_DESCRIPTOR = Marker("group_descriptor", "groups", True)  # a descriptor made at module level, read as a global


def _group_by_site(func_ir, expr) -> bool:
    """`descriptor.group_by(n)`: a method of a warp descriptor, not a global."""
    method = definition(func_ir, expr.func)
    if not (isinstance(method, ir.Expr) and method.op == "getattr" and method.attr == "group_by"):
        return False
    receiver = definition(func_ir, method.value)
    if isinstance(receiver, (ir.Global, ir.FreeVar)):  # a descriptor made at module level
        return isinstance(receiver.value, GroupDescriptor)
    if not (isinstance(receiver, ir.Expr) and receiver.op == "call"):
        return False
    marker = marker_of(python_value(func_ir, receiver.func))
    return (marker is not None and marker.family == "groups") or _group_by_site(func_ir, receiver)


def find_sites(func_ir) -> list[Site]:
    sites = []
    for label, block in func_ir.blocks.items():
        for statement in block.body:
            if not isinstance(statement, ir.Assign):
                continue
            if isinstance(statement.value, (ir.Global, ir.FreeVar)):
                if isinstance(statement.value.value, GroupDescriptor):
                    sites.append(Site(label, statement, HOST_DESCRIPTOR))
                continue
            if not isinstance(statement.value, ir.Expr):
                continue
            if statement.value.op != "call":
                continue
            marker = marker_of(python_value(func_ir, statement.value.func))
            if marker is None and _group_by_site(func_ir, statement.value):
                marker = GROUP_BY
            if marker is not None:
                sites.append(Site(label, statement, marker))
    return sites
