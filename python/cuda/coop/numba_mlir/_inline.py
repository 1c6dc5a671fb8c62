"""Helpers that take part in a cooperative call inline into the kernel, whatever
their size. A cooperative primitive needs the launching kernel's block, which a
device function compiled on its own does not have. numba-cuda-mlir 0.5 inlines
every helper by default; 0.6 inlines by default only helpers of up to 64 IR
statements (a cost model), so a larger helper that receives a group or a
ThreadData, or calls a primitive, would compile on its own. This planner runs just
before cuda.coop's and inlines such a call when the helper's inline option is a
cost model (the default); a helper marked inline='never' is the user's choice and
keeps the planner's error."""

from __future__ import annotations

import sys

from numba_cuda_mlir.extending import WholeFunctionPlanner
from numba_cuda_mlir.numba_cuda.core import ir

from .._core.markers import marker_of
from ._find import find_sites

_MAX_INLINES = 1000  # a bound on nested helpers (recursion never inlines: the compiler refuses it first)


def _coop_module():
    return sys.modules.get("cuda.coop")


def _global_values(function):
    """The values of the globals and free variables a function's code names."""
    code = function.__code__
    names = set(code.co_names)
    for const in code.co_consts:  # comprehensions and nested functions
        if hasattr(const, "co_names"):
            names.update(const.co_names)
    values = [function.__globals__[name] for name in names if name in function.__globals__]
    values += [cell.cell_contents for cell in function.__closure__ or () if _has_contents(cell)]
    return values


def _has_contents(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def uses_coop(function) -> bool:
    """Whether `function` names cuda.coop or one of its markers."""
    coop = _coop_module()
    for value in _global_values(function):
        if value is coop and coop is not None:
            return True
        if marker_of(value) is not None:
            return True
    return False


def _cost_modelled(dispatcher) -> bool:
    """The helper's inline option is a cost model (0.6's default), not always/never."""
    inline = getattr(dispatcher, "targetoptions", {}).get("inline")
    return callable(inline)


def _calls_itself(dispatcher) -> bool:
    """Recursion never inlines (the compiler compiles it on its own, and the planner says why)."""
    function = dispatcher.py_func
    return any(value is dispatcher or value is function for value in _global_values(function))


def _helper(func_ir, expr):
    try:
        found = func_ir.get_definition(expr.func)
    except Exception:  # noqa: BLE001 -- no single definition: not a helper we can name
        return None
    value = getattr(found, "value", None) if isinstance(found, (ir.Global, ir.FreeVar)) else None
    if value is None or not hasattr(value, "py_func") or not hasattr(value, "targetoptions"):
        return None
    return value


def _candidates(func_ir):
    """(block, index, helper) of the first call that must inline, or None."""
    descriptors = {site.statement.target.name for site in find_sites(func_ir)}
    for block in func_ir.blocks.values():
        for index, statement in enumerate(block.body):
            if not (isinstance(statement, ir.Assign) and isinstance(statement.value, ir.Expr)):
                continue
            expr = statement.value
            if expr.op != "call":
                continue
            helper = _helper(func_ir, expr)
            if helper is None or not _cost_modelled(helper) or _calls_itself(helper):
                continue
            arguments = [*expr.args, *(value for _, value in expr.kws)]
            if any(argument.name in descriptors for argument in arguments) or uses_coop(helper.py_func):
                return block, index, helper
    return None


class CoopHelperInliner(WholeFunctionPlanner):
    def run(self) -> bool:
        from numba_cuda_mlir.numba_cuda.core import inline_closurecall

        state = self.state
        func_ir = state.func_ir
        worker = None
        changed = False
        for _ in range(_MAX_INLINES):
            found = _candidates(func_ir)
            if found is None:
                break
            block, index, helper = found
            if worker is None:
                worker = inline_closurecall.InlineWorker(
                    state.typingctx,
                    state.targetctx,
                    state.locals,
                    state.pipeline,
                    state.flags,
                    validator=inline_closurecall.callee_ir_validator,
                )
            worker.inline_function(func_ir, block, index, helper.py_func)
            func_ir._definitions = _definitions(func_ir)
            changed = True
        return changed


def _definitions(func_ir):
    from numba_cuda_mlir.numba_cuda.core.ir_utils import build_definitions

    return build_definitions(func_ir.blocks)
