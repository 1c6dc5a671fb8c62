"""Stage 1, find: the statements that call cuda.coop markers."""

from __future__ import annotations

import dataclasses
import difflib
import types

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.groups import GroupDescriptor
from .._core.errors import UnknownNameError
from .._core.markers import Marker, marker_of
from ._ir import definition, python_value
from ._location import where


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


# Names users reach for that cuda.coop spells as an operator of coop.reduce.
_REDUCTIONS = {"max": "max", "maximum": "max", "min": "min", "minimum": "min", "prod": "mul", "product": "mul"}


def check_names(state) -> None:
    """Refuses a cuda.coop name that does not exist (`coop.max(block, x)`), naming the user's
    line and the call that does the job: left alone, the kernel compiler would report an
    AttributeError without a line, or the planner a group that escapes into an unknown call."""
    for block in state.func_ir.blocks.values():
        for statement in block.body:
            value = statement.value if isinstance(statement, ir.Assign) else None
            if not (isinstance(value, ir.Expr) and value.op == "getattr"):
                continue
            module = python_value(state.func_ir, value.value)
            if not _is_coop_module(module) or hasattr(module, value.attr):
                continue
            shown = "coop" + module.__name__[len("cuda.coop") :]  # as the docs spell it: coop.load, coop.numba_mlir.X
            raise UnknownNameError(
                f"{shown}.{value.attr} ({where(state, statement.loc)}): {module.__name__} has no "
                f"'{value.attr}'; {_instead(module, shown, value.attr)}"
            )


def _is_coop_module(value) -> bool:
    return isinstance(value, types.ModuleType) and (value.__name__ + ".").startswith("cuda.coop.")


def _instead(module, shown: str, name: str) -> str:
    if shown == "coop" and name.lower() in _REDUCTIONS:
        operator = _REDUCTIONS[name.lower()]
        return f'a group\'s {name} is coop.reduce(group, value, binary_op="{operator}")'
    public = getattr(module, "__all__", None) or [each for each in dir(module) if not each.startswith("_")]
    close = difflib.get_close_matches(name, public, n=3)
    if close:
        return "did you mean " + " or ".join(f"{shown}.{each}" for each in close) + "?"
    functions = sorted(each for each in public if each.islower())  # the primitives and group constructors
    return f"its functions are {', '.join(functions)}"
