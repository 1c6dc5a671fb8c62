"""Binding a primitive call's arguments to its signature, with messages that say what to
write: Python's own binding errors name the rule broken, not the habit that broke it (an
operator passed positionally as in CUB, a call written without its group)."""

from __future__ import annotations

import inspect

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.groups import GroupDescriptor
from .._core.errors import InvalidArgumentTypeError
from .._core.markers import marker_of
from ._ir import definitions, python_value

# Keyword-only options that take an operator; a positional extra argument is most often one.
_OPERATOR_OPTIONS = ("binary_op", "scan_op", "compare_op", "difference_op", "flag_op")


def bind(state, function, call: ir.Expr, where_text: str) -> inspect.BoundArguments:
    signature = inspect.signature(function)
    try:
        return signature.bind(*call.args, **dict(call.kws))
    except TypeError as error:
        hint = _hint(state, function.__name__, signature, call, str(error))
        raise InvalidArgumentTypeError(f"{where_text}: {error}{hint}") from None


def _hint(state, name: str, signature, call, reason: str) -> str:
    parameters = signature.parameters.values()
    operands = [p.name for p in parameters if p.kind is p.POSITIONAL_ONLY]
    if reason.startswith("too many positional arguments"):
        return _positional_option_hint(state, signature, call, operands)
    if reason.startswith("missing a required argument") and call.args and not _is_group(state, call.args[0]):
        shown = call.args[0].name.split(".")[0]
        return (
            f"; the first argument must be a group ('{shown}' is not one): write "
            f"coop.{name}({', '.join(operands)}) with a group such as coop.this_block() or coop.this_warp()"
        )
    return ""


def _positional_option_hint(state, signature, call, operands) -> str:
    options = [name for name, p in signature.parameters.items() if p.kind is p.KEYWORD_ONLY]
    extra = call.args[len(operands)] if len(call.args) > len(operands) else None
    value = python_value(state.func_ir, extra) if extra is not None else None
    written = repr(value) if isinstance(value, str) else "..."
    for name in _OPERATOR_OPTIONS:
        if name in options:
            return (
                f"; it takes the operands ({', '.join(operands)}) and every option by keyword: "
                f"pass the operator as {name}={written}"
            )
    return f"; it takes the operands ({', '.join(operands)}) and every option by keyword ({', '.join(options)})"


def _is_group(state, var) -> bool:
    """Whether every definition of `var` is a group descriptor (made here or a kernel global)."""
    for found in definitions(state.func_ir, var):
        if isinstance(found, (ir.Global, ir.FreeVar)):
            if not isinstance(found.value, GroupDescriptor):
                return False
            continue
        if not (isinstance(found, ir.Expr) and found.op == "call"):
            return False
        marker = marker_of(python_value(state.func_ir, found.func))
        if not (marker is not None and marker.family == "groups") and not _is_partition(state, found):
            return False
    return True


def _is_partition(state, found) -> bool:
    method = definitions(state.func_ir, found.func)
    return any(isinstance(m, ir.Expr) and m.op == "getattr" and m.attr == "group_by" for m in method)
