"""Stage 6, rewrite: payloads become local arrays, scratch becomes views of one
shared backing in the entry block, each primitive call becomes a provider call
(after its reuse barrier), and the compile-time constructors disappear."""

from __future__ import annotations

import collections

import numpy as np
from numba_cuda_mlir.extending import set_required_dynamic_shared_memory
from numba_cuda_mlir.numba_cuda.core import ir

from . import _facts, _ir, _records
from ._payloads import Result
from ._prefix_callbacks import SCRATCH_STANDS_IN
from ._provider_call import coop_provider_call, read_record, write_record

# Static shared memory a kernel may declare without opting in to more.
STATIC_SHARED_LIMIT = 48 * 1024


def _backing(state, layout, loc):
    entry = state.func_ir.blocks[min(state.func_ir.blocks)]
    scope = entry.scope
    if layout.bytes > STATIC_SHARED_LIMIT:
        # Beyond 48 KiB only dynamic shared memory will do; the launch gets at least this much.
        set_required_dynamic_shared_memory(state, layout.bytes)
        statements, backing = _ir.array(scope, "shared", 0, "uint8", loc)
    else:
        statements, backing = _ir.array(scope, "shared", layout.bytes, "uint8", loc, alignment=layout.alignment)
    # After the argument bindings, so the backing dominates every use.
    arguments = sum(isinstance(s, ir.Assign) and isinstance(s.value, ir.Arg) for s in entry.body)
    entry.body[arguments:arguments] = statements
    return backing


def _byte_slice(scope, backing, offset, loc, end=None):
    """backing[offset:end], bytes of the shared backing."""
    if offset == 0 and end is None:
        return [], backing
    slice_function, start, stop = (_ir.new_var(scope, name, loc) for name in ("slice", "start", "stop"))
    bounds, view = _ir.new_var(scope, "bounds", loc), _ir.new_var(scope, "scratch", loc)
    return [
        ir.Assign(ir.Global("slice", slice, loc), slice_function, loc),
        ir.Assign(ir.Const(offset, loc), start, loc),
        ir.Assign(ir.Const(end, loc), stop, loc),
        ir.Assign(ir.Expr.call(slice_function, (start, stop), (), loc), bounds, loc),
        ir.Assign(ir.Expr.getitem(backing, bounds, loc), view, loc),
    ], view


def _reserved_array(scope, backing, reservation, offset, loc, target):
    """target = backing[offset:offset + bytes].view(dtype): a reservation's typed array."""
    statements, raw = _byte_slice(scope, backing, offset, loc, offset + reservation.bytes)
    method, dtype = _ir.new_var(scope, "view", loc), _ir.new_var(scope, "dtype", loc)
    np_type = np.dtype(reservation.dtype).type
    return statements + [
        ir.Assign(ir.Expr.getattr(raw, "view", loc), method, loc),
        ir.Assign(ir.Global(np_type.__name__, np_type, loc), dtype, loc),
        ir.Assign(ir.Expr.call(method, (dtype,), (), loc), target, loc),
    ]


def _barrier(scope, kind, loc):
    return _ir.call(scope, ("syncthreads",) if kind == "block" else ("syncwarp",), (), loc)


def _provider_call(scope, linked, scratch, loc, target, wrapped):
    statements, symbol = [], None
    symbol_statement, symbol = _ir.constant(scope, linked.provider.symbol, loc, "symbol")
    function = _ir.new_var(scope, "provider_call", loc)
    statements += [symbol_statement, ir.Assign(ir.Global("coop_provider_call", coop_provider_call, loc), function, loc)]
    given = {**linked.call.operands, **wrapped}
    operands = [given.get(param.array or param.name) for param in linked.provider.abi]
    operands = [
        scratch if param.name == "temp_storage" or operand is SCRATCH_STANDS_IN else operand
        for param, operand in zip(linked.provider.abi, operands)
    ]
    statements.append(ir.Assign(ir.Expr.call(function, (symbol, *operands), (), loc), target, loc))
    return statements


def _one_item_arrays(scope, call, loc):
    """Each operand given one value per thread to a call that takes one-item arrays, copied
    into one: (statements, operand name -> its array)."""
    statements, arrays = [], {}
    for name, dtype in call.one_item.items():
        array = _ir.new_var(scope, "one_item", loc)
        made = _records.local_array(scope, 1, dtype, loc, target=array)
        zero_statement, zero = _ir.constant(scope, 0, loc, "zero")
        statements += made + [zero_statement]
        if _records.is_record(dtype):  # a tuple written field by field into the one record
            item = _ir.new_var(scope, "record", loc)
            statements.append(ir.Assign(ir.Expr.getitem(array, zero, loc), item, loc))
            statements += _record_call(scope, write_record, (item, call.operands[name]), dtype, loc)
        else:
            statements.append(ir.SetItem(array, zero, call.operands[name], loc))
        arrays[name] = array
    return statements, arrays


def _record_call(scope, function, arguments, dtype, loc, target=None):
    """target = function(*arguments, dtype): a record read or written as a tuple (_provider_call)."""
    callee, name = _ir.new_var(scope, function.__name__, loc), _ir.new_var(scope, "record_dtype", loc)
    return [
        ir.Assign(ir.Global(function.__name__, function, loc), callee, loc),
        ir.Assign(ir.Const(dtype, loc), name, loc),
        ir.Assign(ir.Expr.call(callee, (*arguments, name), (), loc), target or _ir.new_var(scope, "none", loc), loc),
    ]


def _returned(scope, made, target, loc):
    """target = what a call returning several payloads, or one value per thread, returns: a
    tuple of its results, or each result's item (a call returning one array writes it under
    its target itself)."""
    owned = [
        payload for payload in made if isinstance(payload, Result) and payload.var is not None and payload.returned
    ]
    if not owned:
        return []
    statements, values = [], []
    for result in owned:
        if result.scalar:
            zero_statement, zero = _ir.constant(scope, 0, loc, "zero")
            item = _ir.new_var(scope, "item", loc)
            statements += [zero_statement, ir.Assign(ir.Expr.getitem(result.var, zero, loc), item, loc)]
            if _records.is_record(result.dtype):  # one value per thread given as a tuple comes back as one
                fields = _ir.new_var(scope, "fields", loc)
                statements += _record_call(scope, read_record, (item,), result.dtype, loc, target=fields)
                item = fields
            values.append(item)
        else:
            values.append(result.var)
    value = values[0] if len(values) == 1 else ir.Expr.build_tuple(values, loc)
    return statements + [ir.Assign(value, target, loc)]


def rewrite(state, linked, payloads, removed_statements, layout):
    """Rewrites the kernel's IR: `linked` (_bundle.LinkedCall) become provider calls."""
    func_ir = state.func_ir
    first_loc = linked[0].call.site.statement.loc if linked else func_ir.loc
    backing = _backing(state, layout, first_loc) if layout.bytes else None
    by_statement = {id(each.call.site.statement): each for each in linked}
    made_by_statement = {}  # a ThreadData, or the fresh payloads a call returns
    for payload in payloads:
        made_by_statement.setdefault(id(payload.site.statement), []).append(payload)
    removed = {id(statement) for statement in removed_statements}
    for block in func_ir.blocks.values():
        body = []
        for statement in block.body:
            key, loc = id(statement), statement.loc
            made = made_by_statement.get(key, [])
            for payload in made:
                own = payload.var if isinstance(payload, Result) else None
                body += _records.local_array(
                    block.scope,
                    payload.extent,
                    payload.dtype,
                    loc,
                    target=own or statement.target,
                    # The kernel compiler's local arrays take multiples of 8; less is met by 8.
                    alignment=max(payload.alignment, 8) if payload.alignment else None,
                    element=payload.element,
                )
            if key in by_statement:
                each = by_statement[key]
                if id(each) in layout.barriers:
                    body += _barrier(block.scope, layout.barriers[id(each)], loc)
                view_statements, view = (
                    _byte_slice(block.scope, backing, layout.offsets[id(each)], loc)
                    if id(each) in layout.offsets
                    else ([], None)
                )
                # A call returning a fresh payload writes the array just made under its target; one
                # filling a payload in place (load) returns that payload.
                fills = _facts.parameters(each.call.facts.operation).fills
                returns_status = not made and fills is None
                target = statement.target if returns_status else _ir.new_var(block.scope, "status", loc)
                wrapping, wrapped = _one_item_arrays(block.scope, each.call, loc)
                body += wrapping + view_statements + _provider_call(block.scope, each, view, loc, target, wrapped)
                if fills is not None:
                    body.append(ir.Assign(each.call.operands[fills], statement.target, loc))
                body += _returned(block.scope, made, statement.target, loc)
            elif key in layout.reserved:
                reservation, offset = layout.reserved[key]
                body += _reserved_array(block.scope, backing, reservation, offset, loc, statement.target)
            elif key not in removed and not made:
                body.append(statement)
        block.body = body
    _drop_dead_bindings(func_ir)


def _orphanable(value) -> bool:
    """Bindings the rewrite may leave without users and that are safe to drop: any
    global, constant, alias or attribute read. Left in place, a consumed operand
    such as a Python operator would reach typing, which cannot type it."""
    return isinstance(value, (ir.Global, ir.FreeVar, ir.Const, ir.Var)) or (
        isinstance(value, ir.Expr) and value.op == "getattr"
    )


def _drop_dead_bindings(func_ir):
    """Marker globals, module attributes and descriptor methods left without users
    must not reach typing: they have no runtime meaning. One pass over the IR counts each
    variable's reads; dropping a binding releases what it read, which may free another."""
    reads = collections.Counter()
    orphanable = collections.defaultdict(list)  # variable -> the droppable bindings of it
    for block in func_ir.blocks.values():
        for statement in block.body:
            reads.update(_ir.names_read(statement))
            if isinstance(statement, ir.Assign) and _orphanable(statement.value):
                orphanable[statement.target.name].append(statement)
    dead = set()
    unread = [name for name in orphanable if reads[name] == 0]
    while unread:
        for statement in orphanable.pop(unread.pop(), ()):
            dead.add(id(statement))
            for name in _ir.names_read(statement):
                reads[name] -= 1
                if reads[name] == 0 and name in orphanable:
                    unread.append(name)
    if dead:
        for block in func_ir.blocks.values():
            block.body = [statement for statement in block.body if id(statement) not in dead]
