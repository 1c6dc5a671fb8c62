"""Collectives under thread-dependent conditions. CUB needs every thread of the group
to reach a cooperative call (it synchronizes and exchanges through scratch): a call
that only some threads reach deadlocks or computes garbage, and nothing at run time
says so (storage-free loads and stores excepted: each thread moves only its own
items). Where the planner can see it, it warns: a call is control dependent on a
branch (it runs on one side only) whose condition varies within the group.

How far a value varies is measured as its uniform span: the number of consecutive
thread ranks over which it is the same. threadIdx.x has span 1, threadIdx.y the
block's x extent, `threadIdx.x // 32` span 32, anything not derived from the thread
index an unbounded span. A condition is uniform over a group of G threads when its
span is a multiple of G (a warp-uniform condition may guard a warp collective).

The same spans find a load's or store's `offset` computed from the thread index: the
group's tile origin is one value for the group, and a warp's tile already follows those
of the warps before it (warp g's is the g-th after `offset`), so an offset that varies
with the thread is a per-thread index or a warp's own origin counted twice."""

from __future__ import annotations

import linecache
import math
import operator
import warnings

import numba_cuda_mlir
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.core.analysis import compute_cfg_from_blocks

from .._core.errors import CoopWarning
from ._ir import python_value
from ._location import where

UNIFORM = math.inf


def warn_divergent_calls(state, planned, block_shape) -> None:
    """Warns once per call in `planned` (_plan.PlannedCall) that only some threads may reach,
    and once per load or store whose offset depends on the thread index."""
    spans = _uniform_spans(state.func_ir, block_shape)
    _warn_partly_reached(state, planned, spans)
    _warn_thread_dependent_offsets(state, planned, spans)


def _warn_partly_reached(state, planned, spans) -> None:
    controlling = _controlling_branches(state.func_ir)
    for each in planned:
        if not each.plan.needs_scratch:
            continue  # a storage-free load or store touches only the calling thread's memory
        call = each.call
        group = call.facts.group
        for branch in controlling.get(call.site.label, ()):
            condition = branch.cond
            span = spans.get(condition.name, UNIFORM)
            if span == UNIFORM or span % group.threads == 0:
                continue
            warnings.warn(_message(state, call, branch, group), CoopWarning, stacklevel=2)
            break


def _message(state, call, branch, group) -> str:
    line = branch.loc.line
    text = linecache.getline(branch.loc.filename, line).strip() if branch.loc.filename else ""
    shown = f" (`{text}`)" if text else ""
    return (
        f"coop.{call.site.marker.name} ({where(state, call.site.statement.loc)}) runs only where the condition at "
        f"line {line}{shown} holds, and that condition depends on the thread index: CUB needs every thread of the "
        f"group ({group!r}) to reach a cooperative call, or the kernel deadlocks or computes garbage. Let every "
        "thread call it (use valid_items for a partial tile) or branch on something uniform over the group"
    )


def _warn_thread_dependent_offsets(state, planned, spans) -> None:
    for each in planned:
        call = each.call
        offset = call.operands.get("offset") if call.site.marker.name in ("load", "store") else None
        span = UNIFORM if offset is None else spans.get(offset.name, UNIFORM)
        if span == UNIFORM:
            continue
        group = call.facts.group
        if group.kind == "warp":
            advice = "warp g's tile already starts g tiles after offset: pass the block's origin only"
        else:
            advice = "pass the group's tile origin, one value for every thread of the group"
        every = "from one thread to the next" if span == 1 else f"every {span} threads"
        warnings.warn(
            f"coop.{call.site.marker.name} ({where(state, call.site.statement.loc)}): argument 'offset' depends on "
            f"the thread index (it changes {every}); {advice}",
            CoopWarning,
            stacklevel=2,
        )


def _controlling_branches(func_ir) -> dict:
    """Block label -> the branches it is control dependent on: it post-dominates one
    successor of the branch but not the branch itself, so only one side reaches it."""
    blocks = func_ir.blocks
    cfg = compute_cfg_from_blocks(blocks)
    post_dominators = cfg.post_dominators()
    controlling: dict = {}
    for label, block in blocks.items():
        branch = block.terminator
        if not isinstance(branch, ir.Branch):
            continue
        for successor in (branch.truebr, branch.falsebr):
            for dependent in blocks:
                dominated = dependent in post_dominators.get(successor, ())
                if dominated and (dependent == label or dependent not in post_dominators.get(label, ())):
                    controlling.setdefault(dependent, []).append(branch)
    return controlling


def _thread_index_span(func_ir, value, block_shape):
    """The span of cuda.threadIdx.<axis>, cuda.laneid or cuda.grid(...), else None."""
    if not (isinstance(value, ir.Expr) and value.op == "getattr"):
        return None
    base = python_value(func_ir, value.value)
    if value.attr in ("x", "y", "z") and base is numba_cuda_mlir.cuda.threadIdx:
        return {"x": 1, "y": block_shape[0], "z": block_shape[0] * block_shape[1]}[value.attr]
    if base is numba_cuda_mlir.cuda and value.attr in ("laneid", "grid"):
        return 1
    return None


def _uniform_spans(func_ir, block_shape) -> dict:
    """Variable name -> its uniform span, for every variable derived from the thread index."""
    spans: dict = {}
    assignments = [
        statement for block in func_ir.blocks.values() for statement in block.body if isinstance(statement, ir.Assign)
    ]
    changed = True
    while changed:  # to a fixpoint: variables are redefined where control flow joins
        changed = False
        for statement in assignments:
            span = _span_of(func_ir, statement.value, spans, block_shape)
            name = statement.target.name
            if span != UNIFORM and span < spans.get(name, UNIFORM):
                spans[name] = span
                changed = True
    return spans


def _span_of(func_ir, value, spans, block_shape):
    source = _thread_index_span(func_ir, value, block_shape)
    if source is not None:
        return source
    if isinstance(value, ir.Var):
        return spans.get(value.name, UNIFORM)
    if not isinstance(value, ir.Expr):
        return UNIFORM
    operands = [spans.get(var.name, UNIFORM) for var in value.list_vars()]
    span = min(operands, default=UNIFORM)
    if span == UNIFORM:
        return UNIFORM
    if value.op == "binop" and value.fn in (operator.floordiv, operator.rshift):
        divisor = python_value(func_ir, value.rhs)
        if isinstance(divisor, int) and divisor > 0 and spans.get(value.rhs.name, UNIFORM) == UNIFORM:
            return span * (divisor if value.fn is operator.floordiv else 2**divisor)
    return span
