"""Types known before Numba's own type inference: kernel arguments directly, and
everything else through a partial inference over the untyped IR (which handles
slices, user local arrays and values carried through type-preserving loops)."""

from __future__ import annotations

from numba_cuda_mlir.numba_cuda import types as numba_types
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.core.errors import TypingError
from numba_cuda_mlir.numba_cuda.core.typed_passes import type_inference_stage

from . import _ir
from ._ir import definition


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
            state = self._state
            # Errors are expected (cooperative calls are still markers); only the types that
            # could be inferred are used, and conflicting ones are left out by Numba.
            result = type_inference_stage(
                state.typingctx,
                state.targetctx,
                _typable(state, self._arrays),
                state.args,
                None,
                state.locals,
                raise_errors=False,
            )
            self._typemap = dict(result.typemap)
        return self._typemap.get(var.name)


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
                length, dtype = arrays[id(statement)]
                body += _ir.array(block.scope, "local", length, dtype, statement.loc, target=statement.target)[0]
                continue
            if isinstance(statement, ir.Assign) and isinstance(statement.value, (ir.Global, ir.FreeVar)):
                try:
                    state.typingctx.resolve_value_type(statement.value.value)
                except (ValueError, TypingError):
                    statement = ir.Assign(ir.Const(None, statement.loc), statement.target, statement.loc)
            body.append(statement)
        block.body = body
    return func_ir
