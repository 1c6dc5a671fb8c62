"""Stage 3b, facts: one engine CallFacts per primitive call, plus the IR variables
that become the runtime operands of its device call."""

from __future__ import annotations

import dataclasses
import inspect

from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.core import ir

from .. import _engine
from .._core.errors import PayloadInferenceError, UnsupportedOperationError
from .._core.markers import all_markers
from . import _groups, _payloads
from ._find import Site
from ._ir import definition, from_literal_unroll, literal_unroll_message, python_value
from ._location import context, where

# Data operands of each implemented operation: (name, role) after the group.
_MEMORY = {"load": "source", "store": "destination"}
_OPTIONS = ("algorithm", "valid_items", "oob_default", "offset")


@dataclasses.dataclass
class Call:
    site: Site
    facts: object  # _engine.CallFacts
    operands: dict  # ABI parameter name -> IR variable (group and storage excluded)
    payload: _payloads.Payload
    temp_storage: str | None  # the TempStorage variable named, if any
    plan: object = None  # _engine.Plan
    provider: object = None  # _engine.Provider


def _binding(state, var):
    """OMITTED for None, STATIC for a constant, RUNTIME otherwise."""
    found = definition(state.func_ir, var)
    if isinstance(found, (ir.Const, ir.Global, ir.FreeVar)):
        value = found.value
        if value is None:
            return _engine.OptionBinding.omitted()
        if isinstance(value, bool):
            return _engine.OptionBinding.fixed("true" if value else "false")
        if isinstance(value, (int, float, str)):
            return _engine.OptionBinding.fixed(str(value) if not isinstance(value, float) else repr(value))
    return _engine.OptionBinding.runtime()


def _payload_of(state, var, payloads, oracle, where_text):
    found = definition(state.func_ir, var)
    for payload in payloads:
        if payload.site is not None and found is payload.site.call:
            return payload
    local = _payloads.local_array(state, var, oracle)
    if local is not None:
        return local
    raise PayloadInferenceError(
        f"{where_text}: argument 'items' is not a coop.ThreadData or a local array of compile-time length; expected "
        "a payload made by coop.ThreadData(n) or cuda.local.array(n, dtype) in this kernel (or in a helper inlined "
        "into it)"
    )


def _memory_dtype(oracle, var, operation, role, where_text):
    memory_type = oracle.type_of(var)
    if not isinstance(memory_type, types.Array):
        raise PayloadInferenceError(
            f"{where_text}: argument '{role}' is {memory_type or 'of unknown type'}; expected a device array"
        )
    dtype = _payloads.dtype_name(memory_type.dtype)
    if dtype is None:
        raise UnsupportedOperationError(
            f"{where_text}: argument '{role}' holds {memory_type.dtype}; coop.{operation} moves bool, int8-int64, "
            "uint8-uint64, float16, bfloat16, float32 or float64"
        )
    return dtype


def analyze(state, site: Site, block_shape, payloads, oracle, storages) -> Call:
    operation = site.marker.name
    where_text = context(operation, state, site.statement.loc)
    if not site.marker.implemented:
        raise UnsupportedOperationError(
            f"{where_text}: coop.{operation} ({site.marker.family}) is not implemented by this cuda.coop yet"
        )
    try:
        bound = inspect.signature(python_value(state.func_ir, site.call.func)).bind(
            *site.call.args, **dict(site.call.kws)
        )
    except TypeError as error:
        raise TypeError(f"{where_text}: {error}") from None
    arguments = bound.arguments
    role = _MEMORY[operation]
    for name in ("algorithm", "items", role):  # before anything reads them as a payload or an array
        if name in arguments and from_literal_unroll(state.func_ir, arguments[name]):
            raise UnsupportedOperationError(literal_unroll_message(where_text, name))
    group = _groups.resolve(state, arguments["group"], block_shape, where_text)
    payload = _payload_of(state, arguments["items"], payloads, oracle, where_text)
    dtype = _memory_dtype(oracle, arguments[role], operation, role, where_text)
    _payloads.agree(payload, dtype, f"the {role} of {where_text}", where_text)
    options = {name: _binding(state, arguments[name]) for name in _OPTIONS if name in arguments}
    options = {name: binding for name, binding in options.items() if binding.binding != "omitted"}
    facts = _engine.CallFacts(operation, group, dtype, payload.extent, options, where(state, site.statement.loc))
    operands = {role: arguments[role], "items": arguments["items"]}
    operands.update({name: arguments[name] for name, binding in options.items() if binding.binding == "runtime"})
    temp_storage = None
    if "temp_storage" in arguments and _binding(state, arguments["temp_storage"]).binding != "omitted":
        temp_storage = _storage_name(state, arguments["temp_storage"], storages, where_text)
    return Call(site, facts, operands, payload, temp_storage)


def _storage_name(state, var, storages, where_text) -> str:
    found = definition(state.func_ir, var)
    for storage in storages:
        if found is storage.site.call:
            return storage.name
    raise UnsupportedOperationError(
        f"{where_text}: argument 'temp_storage' is not a coop.TempStorage made in this kernel"
    )


def is_primitive(site: Site) -> bool:
    return site.marker.family not in ("groups", "storage") and site.marker.name in all_markers()


def dtype_of(payload, where_text):
    if payload.dtype is None:
        raise PayloadInferenceError(
            f"{where_text}: the dtype of payload '{payload.name}' is unknown; give coop.ThreadData a dtype, use it "
            "with a primitive whose memory operand fixes it, or write typed values into it"
        )
    return payload.dtype
