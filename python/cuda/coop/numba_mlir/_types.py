"""Types known before Numba's own type inference: kernel arguments directly; a value
computed from them by a few straight-line statements (an offset such as
`cuda.blockIdx.x * 512`) through an inference over those statements alone; and
everything else through a partial inference over the whole untyped IR (which handles
slices, user local arrays and values carried through type-preserving loops).

The inference over statements alone answers a scalar type that depends only on their
shape (operations, attribute names, constants, modules, argument types) and on the Numba
it runs in, yet costs a millisecond or two, most of it Numba filling its tables in a
process that has typed nothing yet. So the answer is noted in the disk cache (signed, as
its entries are), named by that shape and the versions, and a later process reads it
instead of inferring: `_remembered`."""

from __future__ import annotations

import contextlib
import hashlib
import types as python_types

import numba_cuda_mlir
import numpy as np
from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda import types as numba_types
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.core.errors import TypingError
from numba_cuda_mlir.numba_cuda.core.typed_passes import type_inference_stage
from numba_cuda_mlir.numba_cuda.types import functions

from .. import _engine
from . import _records
from ._ir import definition

# What a value's statements may be for the inference over them alone to type it as the
# whole function's would: a single definition each, no control flow, no container (whose
# type later statements refine).
_STRAIGHT_LINE = (ir.Arg, ir.Const, ir.Global, ir.FreeVar, ir.Var)
_STRAIGHT_LINE_OPS = {"binop", "inplace_binop", "unary", "getattr", "call", "cast", "static_getitem", "getitem"}
_SCALAR_OR_ARRAY = (types.Number, types.Boolean, types.Array)


class TypeOracle:
    """`arrays`: statements that make an array the kernel compiler cannot type before the
    rewrite (a TempStorage reservation), by id, with the (length, dtype) it will have;
    `payloads` the same for the payloads the rewrite makes local arrays (a ThreadData)."""

    def __init__(self, state, arrays=None, payloads=None):
        self._state = state
        self._arrays = {**(arrays or {}), **(payloads or {})}
        self._payloads = set(payloads or ())
        self._payload_statements = None
        self._typemap = None
        self._assignments = None
        self._alone = {}  # name -> its type from the inference over its statements alone
        self._earlier = None

    def refined(self, arrays, payloads):
        """An oracle answering as this one where this one knows, and from a type pass with
        `arrays` and `payloads` standing in where it does not (a value read from a payload
        typed since): a second pass runs only for what the first could not type."""
        refined = TypeOracle(self._state, arrays, payloads)
        refined._earlier = self
        return refined

    def holds_a_payload(self, var) -> bool:
        """Whether `var` holds a payload typed only by its stand-in (a ThreadData, or what a
        load returns of it): kernel-local, never the device memory a call reads or writes."""
        if self._payload_statements is None:  # found once: memory checks ask for every load and store
            self._payload_statements = [
                statement
                for block in self._state.func_ir.blocks.values()
                for statement in block.body
                if id(statement) in self._payloads
            ]
        found = definition(self._state.func_ir, var)
        if any(statement.value is found or statement.target.name == var.name for statement in self._payload_statements):
            return True
        return self._earlier is not None and self._earlier.holds_a_payload(var)

    def type_of(self, var):
        if self._earlier is not None:
            known = self._earlier.type_of(var)
            if known is not None and known not in (numba_types.unknown, numba_types.undefined):
                return known
        found = definition(self._state.func_ir, var)
        if isinstance(found, ir.Arg):
            return self._state.args[found.index]
        if self._typemap is None:
            if var.name not in self._alone:
                self._alone[var.name] = self._type_alone(var)
            if self._alone[var.name] is not None:
                return self._alone[var.name]
            self._typemap = self._infer(_typable(self._state, self._arrays))
        return self._typemap.get(var.name)

    def _type_alone(self, var):
        """The type of `var` from an inference over the statements it is computed by, when
        they are straight-line and it is a scalar or an array; else None."""
        if self._assignments is None:
            self._assignments = _assignments(self._state.func_ir)
        statements = _computing(self._assignments, var.name, self._arrays)
        if statements is None:
            return None
        note = _note_name(statements, var.name, self._state.args)
        known = _remembered(note)
        if known is not None:
            return known
        found = self._infer(_alone(self._state, statements)).get(var.name)
        _remember(note, found)
        return found if isinstance(found, _SCALAR_OR_ARRAY) else None

    def _infer(self, func_ir) -> dict:
        state = self._state
        # Errors are expected (cooperative calls are still markers); only the types that
        # could be inferred are used, and conflicting ones are left out by Numba.
        with _failures_unformatted():
            result = type_inference_stage(
                state.typingctx, state.targetctx, func_ir, state.args, None, state.locals, raise_errors=False
            )
        return dict(result.typemap)


# The scalar types a remembered answer may be, by name.
_SCALARS = {
    str(scalar): scalar
    for scalar in (
        *(getattr(numba_types, f"{kind}{bits}") for kind in ("int", "uint") for bits in (8, 16, 32, 64)),
        numba_types.float16,
        numba_types.float32,
        numba_types.float64,
        numba_types.boolean,
    )
}
_ANSWERS: dict[str, object] = {}  # note name -> type, for the kernels after the first in a process


def _shape(value, shapes: dict, args):
    """What decides the type of one straight-line statement's value, the values it reads
    given by their own shapes (`shapes`: name -> shape); None for anything else (an
    object whose type the shape would not pin down)."""
    if isinstance(value, ir.Var):
        return shapes.get(value.name)
    if isinstance(value, ir.Arg):
        return ("arg", str(args[value.index]))
    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
        found = value.value
        if isinstance(found, (bool, int, float, np.bool_, np.integer, np.floating)):
            return ("value", type(found).__module__, type(found).__qualname__, repr(found))
        if isinstance(found, python_types.ModuleType):
            return ("module", found.__name__)
        if isinstance(found, type) and issubclass(found, np.generic):
            return ("numpy", found.__name__)
        return None
    read = {name: shapes.get(name) for name in (used.name for used in value.list_vars())}
    if None in read.values():
        return None
    if value.op == "getattr":
        return ("getattr", read[value.value.name], value.attr)
    if value.op in ("binop", "inplace_binop"):
        immutable = value.immutable_fn.__name__ if value.op == "inplace_binop" else ""
        return (value.op, value.fn.__name__, immutable, read[value.lhs.name], read[value.rhs.name])
    if value.op == "unary":
        return ("unary", getattr(value.fn, "__name__", str(value.fn)), read[value.value.name])
    if value.op == "cast":
        return ("cast", read[value.value.name])
    if value.op == "call" and not value.kws and value.vararg is None:
        return ("call", read[value.func.name], tuple(read[argument.name] for argument in value.args))
    return None


def _note_name(statements, name: str, args) -> str | None:
    """The disk cache's note for the type of `name` computed by `statements` alone (as
    _computing returns them), or None when their shape does not pin it down."""
    shapes = {}
    for statement in statements:
        shapes[statement.target.name] = _shape(statement.value, shapes, args)
    if shapes.get(name) is None:
        return None
    text = repr((numba_cuda_mlir.__version__, _engine.engine_version(), shapes[name]))
    return "typed-alone-" + hashlib.sha256(text.encode()).hexdigest()[:32]


def _remembered(note: str | None):
    """The type an earlier inference of the same shape answered, in this process or in the disk
    cache's note; None when there is none (or the note fails its check)."""
    if note is None:
        return None
    if note not in _ANSWERS:
        _ANSWERS[note] = _SCALARS.get(_engine.load_note(note) or "")
    return _ANSWERS[note]


def _remember(note: str | None, found) -> None:
    if note is None or str(found) not in _SCALARS:
        return  # only a plain scalar is kept: an array's or a literal's type says more than its name
    from .._engine_session import engine

    _ANSWERS[note] = found
    engine().keep_note(note, str(found))


@contextlib.contextmanager
def _failures_unformatted():
    """Numba words every failed overload resolution into a message, reading each candidate
    template's source lines (milliseconds per failure); a partial inference expects failures
    and drops them, so they go unworded while it runs. Inside a compile, under the compiler's
    lock, no other typing runs meanwhile."""
    failures = functions._ResolutionFailures
    worded = failures.format
    failures.format = lambda self: f"no overload of {self._function_type} for these arguments"
    try:
        yield
    finally:
        failures.format = worded


def _assignments(func_ir) -> dict:
    """Each variable assigned once in the function: name -> (position, statement); a name
    assigned more than once maps to None."""
    found = {}
    position = 0
    for label in sorted(func_ir.blocks):
        for statement in func_ir.blocks[label].body:
            position += 1
            if isinstance(statement, ir.Assign):
                name = statement.target.name
                found[name] = None if name in found else (position, statement)
    return found


def _computing(assignments, name, arrays):
    """The statements computing `name`, in program order, when each is a single straight-line
    definition; None otherwise."""
    chosen, pending = {}, [name]
    while pending:
        current = pending.pop()
        if current in chosen:
            continue
        entry = assignments.get(current)
        if entry is None or id(entry[1]) in arrays:
            return None
        value = entry[1].value
        if not isinstance(value, _STRAIGHT_LINE) and not (
            isinstance(value, ir.Expr) and value.op in _STRAIGHT_LINE_OPS
        ):
            return None
        chosen[current] = entry
        pending += [used.name for used in value.list_vars()] if isinstance(value, ir.Expr) else []
        if isinstance(value, ir.Var):
            pending.append(value.name)
    return [statement for _, statement in sorted(chosen.values(), key=lambda entry: entry[0])]


def _alone(state, statements):
    """A function of one block: `statements` (globals typed as _typable types them), then
    `return None`."""
    func_ir = state.func_ir
    first = func_ir.blocks[min(func_ir.blocks)]
    block = ir.Block(first.scope, first.loc)
    block.body = [_typable_statement(state, statement) for statement in statements]
    none = ir.Var(first.scope, "$coop_alone_none", first.loc)
    block.body += [ir.Assign(ir.Const(None, first.loc), none, first.loc), ir.Return(none, first.loc)]
    return func_ir.derive({0: block})


def _typable_statement(state, statement):
    """A global or closure value Numba has no type for becomes None (see _typable)."""
    if isinstance(statement, ir.Assign) and isinstance(statement.value, (ir.Global, ir.FreeVar)):
        try:
            state.typingctx.resolve_value_type(statement.value.value)
        except (ValueError, TypingError):
            return ir.Assign(ir.Const(None, statement.loc), statement.target, statement.loc)
    return statement


def _typable(state, arrays):
    """A copy of the IR that Numba's inference can walk: a global or closure value it
    has no type for (a prefix_op's class, which exists only at compile time) becomes None, so
    only the values computed from it stay untyped, instead of the whole function; an
    array made by the rewrite later stands in as a local array of its length and dtype."""
    func_ir = state.func_ir.copy()
    func_ir.blocks = {label: block.copy() for label, block in func_ir.blocks.items()}
    for block in func_ir.blocks.values():
        body = []
        for statement in block.body:
            if id(statement) in arrays:
                length, dtype, element = arrays[id(statement)]
                body += _records.local_array(
                    block.scope, length, dtype, statement.loc, target=statement.target, element=element
                )
                continue
            body.append(_typable_statement(state, statement))
        block.body = body
    return func_ir
