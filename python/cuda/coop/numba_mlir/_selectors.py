"""Selector options as the engine reads them: a string is trimmed, lowercased and
its '-' read as '_' ("Warp-Transpose " is "warp_transpose"); a member of the
qualified namespace's IntEnums is its lowercase name. Runs before the facts, on
the constants the calls pass, so every later stage sees the one spelling."""

from __future__ import annotations

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api import enums as _enums
from . import _facts
from ._ir import definition, new_var, python_value


def normalized(value):
    """The selector `value` stands for, or None when it is not one."""
    member = _enums.selector(value)
    if member is not None:
        return member
    if isinstance(value, str):
        return value.strip().lower().replace("-", "_")
    return None


def normalize(state, sites) -> None:
    """Rewrites the selector arguments of every primitive call to their normal spelling."""
    func_ir = state.func_ir
    replacements = {}  # id(call statement) -> [(keyword, new constant)]
    for site in sites:
        if not (_facts.is_primitive(site) and site.marker.implemented):
            continue
        kinds = _facts.option_kinds(site.marker.name)
        for keyword, var in site.call.kws:
            if kinds.get(keyword) != "choice":
                continue
            found = definition(func_ir, var)
            if isinstance(found, ir.Const) and not isinstance(found.value, str):
                continue
            value = python_value(func_ir, var)
            spelling = normalized(value)
            if spelling is not None and spelling != value:
                replacements.setdefault(id(site.statement), []).append((keyword, spelling))
    if not replacements:
        return
    for block in func_ir.blocks.values():
        body = []
        for statement in block.body:
            for keyword, spelling in replacements.get(id(statement), ()):
                constant = new_var(block.scope, keyword, statement.loc)
                value = ir.Const(spelling, statement.loc)
                body.append(ir.Assign(value, constant, statement.loc))
                func_ir._definitions[constant.name] = [value]
                statement.value.kws = [
                    (name, constant if name == keyword else var) for name, var in statement.value.kws
                ]
            body.append(statement)
        block.body = body
