"""Small helpers over numba-cuda-mlir's untyped IR (not yet SSA: a variable may
have several definitions, so every lookup is guarded)."""

from __future__ import annotations

import operator

import numba_cuda_mlir
import numpy as np
from numba_cuda_mlir.numba_cuda.core import ir, ir_utils


def definition(func_ir, var):
    """The single expression defining `var` (through plain aliases), or None."""
    return ir_utils.guard(ir_utils.get_definition, func_ir, var)


def definitions(func_ir, var, seen=None) -> list:
    """Every expression that may define `var`, through aliases and the several
    definitions a variable has where control flow joins."""
    seen = set() if seen is None else seen
    if var.name in seen:
        return []
    seen.add(var.name)
    found = []
    for value in func_ir._definitions.get(var.name, []):
        found += definitions(func_ir, value, seen) if isinstance(value, ir.Var) else [value]
    return found


# What arithmetic written in the kernel on compile-time values is folded over (`2 * ITEMS`).
_NUMBERS = (bool, int, float, np.bool_, np.integer, np.floating)
# Operators whose result grows with their right operand: folded only up to this one, so that
# `2 ** N` of a huge N is left to the kernel compiler instead of stalling the planner.
_GROWING = (operator.pow, operator.ipow, operator.lshift, operator.ilshift)
_LARGEST_GROWTH = 1024


def python_value(func_ir, var):
    """The Python object `var` is bound to (a global, closure value, constant, a module
    attribute chain, or arithmetic on numbers that are: `2 * ITEMS`, `-OFFSET`), or None."""
    found = definition(func_ir, var)
    if isinstance(found, (ir.Global, ir.FreeVar, ir.Const)):
        return found.value
    if isinstance(found, ir.Expr) and found.op in ("binop", "inplace_binop", "unary"):
        return _folded(func_ir, found)
    if isinstance(found, ir.Expr) and found.op == "getattr":
        base = python_value(func_ir, found.value)
        return getattr(base, found.attr, None) if base is not None else None
    if isinstance(found, ir.Expr) and found.op == "build_tuple":  # (32, 4) written in the kernel
        items = [python_value(func_ir, item) for item in found.items]
        return tuple(items) if all(item is not None for item in items) else None
    return None


def is_folded(func_ir, var) -> bool:
    """Whether `var` is arithmetic on compile-time numbers (python_value gives its value)."""
    found = definition(func_ir, var)
    return (
        isinstance(found, ir.Expr)
        and found.op in ("binop", "inplace_binop", "unary")
        and isinstance(python_value(func_ir, var), _NUMBERS)
    )


def _folded(func_ir, expression):
    """The value Python gives an operator applied to compile-time numbers, or None (an
    operand that is not one, or an operation that fails: 1 // 0)."""
    if expression.op == "unary":
        operands = (python_value(func_ir, expression.value),)
        function = expression.fn
    else:
        operands = (python_value(func_ir, expression.lhs), python_value(func_ir, expression.rhs))
        function = expression.fn if expression.op == "binop" else expression.immutable_fn
    if not callable(function) or not all(isinstance(operand, _NUMBERS) for operand in operands):
        return None
    if function in _GROWING and abs(operands[-1]) > _LARGEST_GROWTH:
        return None
    try:
        return function(*operands)
    except (ArithmeticError, TypeError, ValueError):
        return None


def replace_value(func_ir, statement, value) -> None:
    """Makes `statement` assign `value` instead, keeping the definitions table in step."""
    known = func_ir._definitions.get(statement.target.name, [])
    func_ir._definitions[statement.target.name] = [value if found is statement.value else found for found in known]
    statement.value = value


def new_var(scope, name, loc):
    return ir.Var(scope, ir_utils.mk_unique_var(f"$coop_{name}"), loc)


def cuda_attribute(scope, path, loc):
    """Statements binding numba_cuda_mlir.cuda.<path...>, typed the way user code is:
    cuda.local.array and friends type only as attributes of the cuda module."""
    module = new_var(scope, "cuda", loc)
    statements = [ir.Assign(ir.Global("cuda", numba_cuda_mlir.cuda, loc), module, loc)]
    current = module
    for attribute in path:
        following = new_var(scope, attribute, loc)
        statements.append(ir.Assign(ir.Expr.getattr(current, attribute, loc), following, loc))
        current = following
    return statements, current


def constant(scope, value, loc, name="const"):
    var = new_var(scope, name, loc)
    return ir.Assign(ir.Const(value, loc), var, loc), var


def array(scope, space, length, dtype, loc, *, target=None, alignment=None):
    """target = cuda.<space>.array(length, dtype[, alignment])."""
    statements, function = cuda_attribute(scope, (space, "array"), loc)
    length_statement, length_var = constant(scope, length, loc, "length")
    dtype_var = new_var(scope, "dtype", loc)
    np_type = np.dtype(dtype).type
    statements += [length_statement, ir.Assign(ir.Global(np_type.__name__, np_type, loc), dtype_var, loc)]
    arguments = [length_var, dtype_var]
    if alignment is not None:
        alignment_statement, alignment_var = constant(scope, alignment, loc, "alignment")
        statements.append(alignment_statement)
        arguments.append(alignment_var)
    target = target or new_var(scope, f"{space}_array", loc)
    statements.append(ir.Assign(ir.Expr.call(function, tuple(arguments), (), loc), target, loc))
    return statements, target


def call(scope, function_path, arguments, loc):
    """Statements calling numba_cuda_mlir.cuda.<function_path>(*arguments)."""
    statements, function = cuda_attribute(scope, function_path, loc)
    result = new_var(scope, "result", loc)
    statements.append(ir.Assign(ir.Expr.call(function, tuple(arguments), (), loc), result, loc))
    return statements


def names_read(statement) -> list:
    """The variables a statement reads (an assignment's target is not read), with repeats."""
    if isinstance(statement, ir.Assign):
        value = statement.value
        if isinstance(value, ir.Var):
            return [value.name]
        return [var.name for var in value.list_vars()] if isinstance(value, ir.Expr) else []
    return [var.name for var in statement.list_vars()]


def used_names(func_ir):
    return {name for block in func_ir.blocks.values() for statement in block.body for name in names_read(statement)}


def close_over_aliases(func_ir, known: dict, source_of) -> None:
    """Extends `known` (variable name -> what it stands for) with every variable
    assigned from one of them, to a fixpoint; `source_of(value)` is the name of the
    variable an assigned value derives from, or None."""
    changed = True
    while changed:
        changed = False
        for block in func_ir.blocks.values():
            for statement in block.body:
                if not isinstance(statement, ir.Assign) or statement.target.name in known:
                    continue
                source = source_of(statement.value)
                if source in known:
                    known[statement.target.name] = known[source]
                    changed = True


def from_literal_unroll(func_ir, var) -> bool:
    """Whether `var` is the loop variable of `for var in literal_unroll(...)`. Such
    values exist only after unrolling, which runs after the planner."""
    from numba_cuda_mlir.numba_cuda.misc.special import literal_unroll

    found = definition(func_ir, var)
    for op in ("pair_first", "iternext", "getiter"):
        if not (isinstance(found, ir.Expr) and found.op == op):
            return False
        found = definition(func_ir, found.value)
    return isinstance(found, ir.Expr) and found.op == "call" and python_value(func_ir, found.func) is literal_unroll


def literal_unroll_message(where_text: str, argument: str) -> str:
    return (
        f"{where_text}: argument '{argument}' comes from literal_unroll, which cuda.coop cannot plan (its planner runs "
        "before loops are unrolled); write one call per value with compile-time constants instead, e.g. "
        "coop.ThreadData(2) and coop.ThreadData(4) in two explicit branches"
    )
