"""Stage 3b, facts: one engine CallFacts per primitive call, plus the IR variables
that become the runtime operands of its device call."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import operator

import numpy as np
from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.types.misc import unliteral

from .. import _engine
from .._core.errors import (
    InvalidArgumentError,
    InvalidArgumentTypeError,
    PayloadInferenceError,
    UnsupportedOperationError,
)
from .._core.markers import all_markers
from . import _arguments, _groups, _ir, _operators, _payloads, _prefix_callbacks, _records
from ._find import Site
from ._ir import definition, definitions, from_literal_unroll, is_folded, literal_unroll_message, python_value
from ._location import context, where

# The one parameter of the Python API the engine's catalog does not declare: the
# front end resolves it to a scratch region (_storage) before the engine plans.
_TEMP_STORAGE = "temp_storage"

# Operators written as Python objects, by the name the engine knows them by (the engine's
# catalog holds the names and their string spellings: _engine.builtin_operators()).
_OPERATORS = {
    operator.add: "sum",
    operator.mul: "mul",
    operator.sub: "difference",
    builtins.min: "min",
    builtins.max: "max",
    operator.and_: "bit_and",
    operator.or_: "bit_or",
    operator.xor: "bit_xor",
    np.add: "sum",
    np.multiply: "mul",
    np.subtract: "difference",
    np.minimum: "min",
    np.maximum: "max",
    np.bitwise_and: "bit_and",
    np.bitwise_or: "bit_or",
    np.bitwise_xor: "bit_xor",
}


# Predicates written as Python objects, by the name the engine knows them by.
_PREDICATES = {
    operator.lt: "less",
    operator.gt: "greater",
    operator.le: "less_equal",
    operator.ge: "greater_equal",
    operator.ne: "not_equal",
    operator.eq: "equal",
    np.less: "less",
    np.greater: "greater",
    np.less_equal: "less_equal",
    np.greater_equal: "greater_equal",
    np.not_equal: "not_equal",
    np.equal: "equal",
}


@functools.cache
def _spellings(kind: str) -> dict:
    """Every string an operator (kind "operator") or predicate option may be, by the engine's
    name it stands for."""
    spellings = {}
    specs = _engine.builtin_operators() if kind == "operator" else _engine.builtin_predicates()
    for spec in specs:
        spellings.update({spelling: spec["name"] for spelling in (spec["name"], *spec["aliases"])})
    return spellings


@dataclasses.dataclass(frozen=True)
class Call:
    """What the facts stage knows of one primitive call; the plan and bundle stages
    return their results alongside it (_plan.PlannedCall, _bundle.LinkedCall)."""

    site: Site
    facts: object  # _engine.CallFacts
    operands: dict  # ABI parameter name -> IR variable (group and storage excluded)
    payload: _payloads.Payload
    temp_storage: str | None  # the TempStorage variable named, if any
    # symbol -> a thunk compiling that Python function (an operator, a prefix callback) to the
    # link item the plan's external function of that symbol needs; run after planning.
    link_requests: dict = dataclasses.field(default_factory=dict)
    prefix_callback: object = None  # _prefix_callbacks.PrefixCallback
    prefix_argument: object = None  # the IR variable the call passes its prefix callback in
    # Operands given one value per thread to a call that takes them as one-item arrays
    # (Parameters.scalar_as_one_item): operand name -> its dtype; the rewrite wraps them.
    one_item: dict = dataclasses.field(default_factory=dict)
    # A device array the call reads or writes as one run (typed C-contiguous), not as a view.
    reads_memory_as_runs: bool = False


_INTEGER_OPTIONS = ("count", "offset")  # option kinds that take an integer
_FLAG_OPTIONS = ("bool", "broadcast")  # option kinds that take True or False
_NAMED_OPTIONS = ("choice", "operator", "predicate")  # option kinds a string names a value of
_PAYLOAD_ROLES = ("payload_in", "payload_out", "payload_inout")
_MEMORY_ROLES = ("source_array", "destination_array")


@dataclasses.dataclass(frozen=True)
class ResultSpec:
    """A fresh payload the call returns, as the catalog declares it."""

    name: str
    starts_as: str  # the operand whose shape (and dtype, unless `dtype`) it takes: the payload when ""
    dtype: str | None  # a dtype CUB fixes (a rank's int32)
    # (option, value) pairs: returned only where one holds (a discontinuity's tails); empty: always
    returned_when: tuple = ()
    # The options whose values are its items per thread and its dtype (a histogram's bins_per_thread
    # and counter_dtype); None: the payload's extent, and its dtype or `dtype`.
    extent_option: str | None = None
    dtype_option: str | None = None
    # "batches_per_lane": ceil(the payload's items / the group's lanes) items (a batched warp reduction's)
    extent_rule: str | None = None


@dataclasses.dataclass(frozen=True)
class Parameters:
    """An operation's parameters as the engine's catalog declares them, by role and kind."""

    payload: str  # the operand holding this thread's items
    fills: str | None  # the payload the call fills in place and returns (load's output), if any
    memory: str | None  # the array the group reads or writes, if any: it fixes the dtype
    values: tuple  # operands that cross the ABI as runtime values as they are (flags)
    results: tuple  # fresh payloads the call returns (the front end allocates them), by name
    result_specs: tuple  # ResultSpec of each, in order: several are returned as a tuple
    kinds: dict  # option name -> its kind ("choice", "count", "operator", ...)
    defaults: dict  # option name -> its default as the catalog spells it ("" for none)
    # Choices of a dtype (a histogram's counter_dtype) -> the dtypes each takes: any spelling of one is.
    dtype_options: dict
    # A named dtype such a choice fills -> the choice (a run-length decode's OffsetT -> decoded_offset_dtype).
    dtype_fills: dict
    elements: dict  # payload-array option -> the dtype its items must have
    prefix_states: dict  # prefix-callback option -> the ABI parameter of its state
    aliases: dict  # another name an option is accepted by (the seed's spellings) -> the option
    # Arrays whose dtype or length is a named fact of the call (CallFacts.dtypes, .extents):
    # operand or payload-array option -> the name its dtype / its length fills ("ValueT", "bins").
    named_dtypes: dict
    named_extents: dict
    named_operands: tuple  # the operands among them (not options): passed to the call as they are
    # CUB has no overload for one value per thread: a scalar payload (and the other payload
    # operands) is passed as a one-item array, and the results' items are returned.
    scalar_as_one_item: bool
    # The named dtype of the value the call returns where it is not the payload's (a run-length
    # decode's total, OffsetT); None: the payload's.
    result_dtype: str | None = None
    # Device arrays the call writes beside its memory, given as options (a run-length decode's
    # relative offsets into memory): their dtype is the named dtype they fill, or the call's.
    memory_options: tuple = ()
    # Offsets the call takes whole as an index -> the named dtype their runtime value fills
    # (uint64 for an unsigned 64-bit value, else int64).
    index_dtypes: dict = dataclasses.field(default_factory=dict)
    # A dtype option -> the named dtype it follows when omitted and no array gives its fact,
    # widened to 32 bits (a run-length decode's decoded_offset_dtype follows its LengthT).
    dtype_likes: dict = dataclasses.field(default_factory=dict)

    def options_of(self, kind: str) -> list:
        return [name for name, option_kind in self.kinds.items() if option_kind == kind]


@functools.cache
def parameters(operation: str) -> Parameters:
    """The catalog's operands and options of `operation`, read once per process."""
    spec = _engine.operation(operation)
    roles = [(operand["name"], operand["role"]) for operand in spec["operands"]]
    results = [operand for operand in spec["operands"] if operand["role"] == "payload_result"]
    arrays = (*(operand for operand in spec["operands"] if operand not in results), *spec["options"])
    named_dtypes, named_extents = _named(arrays, "named_dtype"), _named(arrays, "named_extent")
    filling = {option["fills_fact"]: option["name"] for option in spec["options"] if "fills_fact" in option}
    dtype_choices = [option for option in spec["options"] if "fills_fact" in option and option["type"] == "choice"]
    return Parameters(
        payload=next(name for name, role in roles if role in _PAYLOAD_ROLES),
        fills=next((name for name, role in roles if role == "payload_out"), None),
        memory=next((name for name, role in roles if role in _MEMORY_ROLES), None),
        values=tuple(name for name, role in roles if role == "flag"),
        results=tuple(result["name"] for result in results),
        result_specs=tuple(
            ResultSpec(
                result["name"],
                result["starts_as"],
                result.get("dtype"),
                tuple(result.get("returned_when", ())),
                filling.get(result.get("named_extent")),
                filling.get(result.get("named_dtype")),
                result.get("extent_rule"),
            )
            for result in results
        ),
        kinds={option["name"]: option["type"] for option in spec["options"]},
        defaults={option["name"]: option["default"] for option in spec["options"]},
        dtype_options={option["name"]: tuple(option["choices"]) for option in dtype_choices},
        dtype_fills={option["fills_fact"]: option["name"] for option in dtype_choices},
        elements={option["name"]: option["element"] for option in spec["options"] if option["element"]},
        prefix_states={
            option["name"]: option["state_parameter"] for option in spec["options"] if option["state_parameter"]
        },
        aliases={alias: option["name"] for option in spec["options"] for alias in option["aliases"]},
        named_dtypes=named_dtypes,
        named_extents=named_extents,
        named_operands=tuple(name for name, _ in roles if name in named_dtypes or name in named_extents),
        scalar_as_one_item=spec["scalar_as_one_item"],
        result_dtype=spec.get("result_dtype"),
        memory_options=tuple(option["name"] for option in spec["options"] if option["type"] == "destination_array"),
        index_dtypes={option["name"]: option["index_dtype"] for option in spec["options"] if "index_dtype" in option},
        dtype_likes={option["name"]: option["default_like"] for option in spec["options"] if "default_like" in option},
    )


def _named(parameters, key: str) -> dict:
    """Parameter name -> the named fact (`key`: "named_dtype" or "named_extent") its array fills."""
    return {parameter["name"]: parameter[key] for parameter in parameters if key in parameter}


def option_kinds(operation: str) -> dict:
    """Option name -> its kind in the engine's catalog ("choice", "count", ...)."""
    return parameters(operation).kinds


def _binding(state, var, name: str = "", kind: str = "", where_text: str = ""):
    """OMITTED for None, STATIC for a constant, RUNTIME otherwise. A constant must be
    of the kind the option takes: "10" is not a count, nor True an offset."""
    found = definition(state.func_ir, var)
    # A module's attribute (`radix_bits=config.BITS`) is a constant too, and so are a NumPy scalar
    # and arithmetic on constants (`decoded_items_per_thread=2 * ITEMS`).
    module_constant = (isinstance(found, ir.Expr) and found.op == "getattr") or is_folded(state.func_ir, var)
    value = _payloads.plain_constant(python_value(state.func_ir, var)) if module_constant else None
    if isinstance(value, (bool, int, float, str)) or isinstance(found, (ir.Const, ir.Global, ir.FreeVar)):
        value = value if module_constant else _payloads.plain_constant(found.value)
        if kind == "payload_scalar" and isinstance(value, tuple):
            return _engine.OptionBinding.runtime()  # a record's value: its fields cross by pointer
        if value is None:
            return _engine.OptionBinding.omitted()
        _check_constant_kind(value, name, kind, where_text)
        if isinstance(value, bool):
            return _engine.OptionBinding.fixed("true" if value else "false")
        if isinstance(value, (int, float, str)):
            return _engine.OptionBinding.fixed(str(value) if not isinstance(value, float) else repr(value))
    return _engine.OptionBinding.runtime()


def _dtype_binding(state, var, name: str, where_text: str):
    """A dtype option (a histogram's counter_dtype) given as its name, a NumPy type or dtype, a
    kernel compiler type, or Python's int (int32); the engine checks it is one it takes."""
    value = _payloads.dtype_value(state, var)
    if value is None:
        return _engine.OptionBinding.omitted()
    dtype = "int32" if value is int else _payloads.explicit_dtype(value)
    if dtype is None:
        raise InvalidArgumentTypeError(
            f"{where_text}: argument '{name}' = {value!r} is not a dtype; expected a compile-time dtype: its name, "
            "a NumPy type or np.dtype, or a kernel compiler type (types.int64)"
        )
    return _engine.OptionBinding.fixed(dtype)


def _check_constant_kind(value, name: str, kind: str, where_text: str) -> None:
    if kind in _INTEGER_OPTIONS and (isinstance(value, bool) or not isinstance(value, int)):
        expected = "an integer (a constant or a runtime integer)"
    elif kind == "payload_scalar" and not isinstance(value, (bool, int, float)):
        expected = "a number of the payload's dtype"
    elif kind in _NAMED_OPTIONS and not isinstance(value, str):
        expected = "one of its names as a string"
    elif kind in _FLAG_OPTIONS and not isinstance(value, bool):
        expected = "True or False"
    else:
        return
    raise InvalidArgumentTypeError(
        f"{where_text}: argument '{name}' = {value!r} ({type(value).__name__}) is not allowed; expected {expected}"
    )


def _check_runtime_value(value_type, name: str, kind: str, dtype: str, where_text: str, index: bool = False) -> None:
    """A runtime option must be a scalar of the kind it stands for: an array or a float
    count would reach the device call converted, or not at all. An index (`index`) is any
    integer, uint64 included; another offset or count is one int64 holds."""
    if value_type is None:
        return  # not known before typing
    if kind in _INTEGER_OPTIONS and index:
        if isinstance(value_type, types.Integer):
            return
        expected = "an integer (int8-int64 or uint8-uint64)"
    elif kind in _INTEGER_OPTIONS:
        if isinstance(value_type, types.Integer) and str(value_type) != "uint64":
            return
        expected = "an integer (int8-int64 or uint8-uint32; convert it explicitly)"
    elif kind == "payload_scalar" and _records.is_record(dtype):
        fields = _records.layout(dtype).fields
        if isinstance(value_type, types.BaseTuple) and len(value_type.types) == len(fields):
            return
        expected = f"a tuple of {len(fields)} values ({', '.join(fields)}), the payload's {dtype}"
    elif kind == "payload_scalar":
        if isinstance(value_type, (types.Number, types.Boolean)):
            return _check_value_type(value_type, dtype, name, where_text)
        expected = f"a scalar of the payload's dtype {dtype}"
    elif kind == "flag":
        if isinstance(value_type, (types.Integer, types.Boolean)):
            return
        expected = "an integer or bool flag per thread"
    else:
        return
    raise InvalidArgumentError(f"{where_text}: argument '{name}' is {value_type}; expected {expected}")


def _memory_type(oracle, var, role, where_text):
    memory_type = oracle.type_of(var)
    if oracle.holds_a_payload(var):
        memory_type = "a coop.ThreadData (kernel-local)"
    if not isinstance(memory_type, types.Array) or memory_type.ndim < 1:
        raise PayloadInferenceError(
            f"{where_text}: argument '{role}' is {memory_type or 'of unknown type'}; expected a device array"
        )
    return memory_type


def view_dimensions(array_type) -> int:
    """0 for memory the tile can be read from as one flat run (C order, or 1-D of unit
    stride); otherwise the dimensions of the strided view the provider must address
    element by element in C order (a slice with a step, a sub-matrix, Fortran order)."""
    contiguous = array_type.layout == "C" or (array_type.ndim == 1 and array_type.layout == "F")
    return 0 if contiguous else array_type.ndim


def _memory_dtype(memory_type, operation, role, where_text):
    dtype = _payloads.dtype_name(memory_type.dtype)
    refused = _records.refused_structured(memory_type.dtype, _payloads.dtype_name)
    if refused is not None:
        raise UnsupportedOperationError(
            f"{where_text}: argument '{role}' holds {refused}; coop.{operation} moves scalars and records "
            "(aligned structured dtypes of scalar fields)"
        )
    if dtype is None:
        raise UnsupportedOperationError(
            f"{where_text}: argument '{role}' holds {memory_type.dtype}; coop.{operation} moves bool, int8-int64, "
            "uint8-uint64, float16, bfloat16, float32, float64, complex64 or complex128"
        )
    return dtype


def _user_function(state, kind, name, var, dtype, oracle, where_text):
    """The engine's name of the operator or predicate (`kind`), and for a Python one its link
    request (symbol -> compile thunk; {} for a built-in)."""
    value = python_value(state.func_ir, var)
    spellings = _spellings(kind)
    if isinstance(value, str) and value.strip().lower() in spellings:
        return _engine.OptionBinding.fixed(spellings[value.strip().lower()]), {}
    objects = _OPERATORS if kind == "operator" else _PREDICATES
    if _is_hashable(value) and value in objects:
        return _engine.OptionBinding.fixed(objects[value]), {}
    function = _operators.python_function(value)
    if function is None:
        named = (
            "operator.add, operator.mul, min, max, a NumPy ufunc (np.add, np.maximum, ...), or a Python function "
            "op(a, b)"
            if kind == "operator"
            else "operator.lt, operator.gt, np.less, ..., or a Python function less(a, b) returning a bool"
        )
        raise InvalidArgumentError(
            f"{where_text}: argument '{name}' = {shown_value(state, var, oracle)} is not allowed; expected one of "
            f"{', '.join(repr(spelling) for spelling in spellings)}, {named}"
        )
    _operators.check_binary(function, where_text, name, kind)
    arch = state.metadata["targetoptions"]["chip"]
    symbol = _operators.operator_symbol(function, dtype, kind)
    compile_it = functools.partial(_operators.compile_operator, function, dtype, arch, where_text, state, name, kind)
    return _engine.OptionBinding.fixed(f"user:{symbol}"), {symbol: compile_it}


def _is_hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _check_value_type(value_type, dtype: str, name: str, where_text: str) -> None:
    """A runtime value converted to the payload's dtype must not lose its kind: a
    float seed for an integer scan would be truncated without a word."""
    if value_type is None:
        return  # not known before typing; the ABI converts it
    complex_payload = dtype.startswith("complex")
    lossy = (isinstance(value_type, types.Complex) and not complex_payload) or (
        isinstance(value_type, types.Float) and not dtype.startswith(("float", "bfloat", "complex"))
    )
    if lossy:
        raise InvalidArgumentError(
            f"{where_text}: argument '{name}' is {value_type}; expected a value of the payload's dtype {dtype} "
            "(convert it explicitly if truncation is meant)"
        )


def _check_same_extent(payload, other, payload_name: str, other_name: str, where_text: str) -> None:
    """An operand written in the payload's shape must hold as many items: a shorter one
    would be written past its end."""
    if other.extent != payload.extent:
        raise InvalidArgumentError(
            f"{where_text}: argument '{other_name}' ({_shown(other.name)}) holds {other.extent} item(s) per thread but the "
            f"payload '{_shown(payload_name)}' holds {payload.extent}; expected the same extent (and dtype)"
        )


def shown_value(state, var, oracle) -> str:
    """How a message shows the value an argument was given: a constant or global as
    itself, an object made in the kernel by its class, anything else by its type."""
    value = python_value(state.func_ir, var)
    if value is not None:
        return getattr(value, "__qualname__", None) or repr(value)
    found = definition(state.func_ir, var)
    if isinstance(found, ir.Expr) and found.op == "call":
        made_by = python_value(state.func_ir, found.func)
        if made_by is not None:
            return f"an object made by {getattr(made_by, '__qualname__', repr(made_by))}(...) in the kernel"
    value_type = oracle.type_of(var)
    shown = f"'{_shown(var.name)}'" if not var.name.startswith("$") else "a value"
    return f"{shown} of type {value_type}" if value_type is not None else shown


def _shown(name: str) -> str:
    """A user variable's name without the compiler's SSA suffix ("items.1" -> "items")."""
    return name.split(".")[0]


def _check_aggregate_array(state, var, payloads, oracle, dtype: str, name: str, where_text: str) -> None:
    """The aggregate is written as one value of the payload's dtype into item 0 of a
    ThreadData (typed by it if it has no dtype yet) or of an array. A payload or local
    array of another length is a mistake the kernel would never show: its other items
    would keep whatever they held."""
    known = _payloads.array_payload(state, var, payloads, oracle)
    if known is not None and known.extent != 1:
        raise InvalidArgumentError(
            f"{where_text}: argument '{name}' holds {known.extent} items; expected a one-item coop.ThreadData "
            f"or array of the payload's dtype {dtype} (the call writes one value, to item 0)"
        )
    found = definition(state.func_ir, var)
    made = next((payload for payload in payloads if payload.site is not None and found is payload.site.call), None)
    if made is not None:
        _payloads.agree(made, dtype, f"the payload of {where_text}", where_text)
        return
    array_type = oracle.type_of(var)
    if isinstance(array_type, types.Array) and _payloads.dtype_name(array_type.dtype) == dtype:
        return
    raise InvalidArgumentError(
        f"{where_text}: argument '{name}' is {array_type or 'not an array'}; expected a one-item coop.ThreadData "
        f"or array of the payload's dtype {dtype} (the aggregate is written to item 0)"
    )


def _payload(state, var, payloads, oracle, where_text, argument="items"):
    """The call's payload: a ThreadData, a local array or a payload a primitive returned
    (array), or one value per thread (scalar)."""
    joined = _joined_payload(state, var, payloads, oracle, where_text)
    if joined is not None:
        return joined, "array"
    found = definition(state.func_ir, var)
    filled = _payloads.filled_by(state, found)
    if filled is not None:  # `items = coop.load(...)`: load returns the payload it filled
        return _payload(state, filled, payloads, oracle, where_text, argument)
    array = _payloads.array_payload(state, var, payloads, oracle)
    if array is not None:
        return array, "array"
    value_type = oracle.type_of(var)
    _refuse_unknown_array(state, found, value_type, argument, where_text)
    dtype = _payloads.dtype_name(value_type) if value_type is not None else None
    if dtype is None and isinstance(found, ir.Expr) and found.op in ("getitem", "static_getitem"):
        item_of = _payloads.array_payload(state, found.value, payloads, oracle)  # `coop.sum(block, items[0])`
        dtype = item_of.dtype if item_of is not None else None
    returned = _payloads.returned_by(state, var, payloads, scalar=True)  # `key = coop.radix_sort_keys(block, x)`
    if dtype is None and returned is not None:
        dtype = returned.dtype
    if dtype is None:
        dtype = _scalar_result_dtype(state, found, payloads, oracle, where_text)
    number = python_value(state.func_ir, var) if isinstance(found, ir.Const) else None
    if isinstance(number, (bool, int, float, complex)):  # `coop.store(block, destination, 0)`
        return _payloads.Payload(None, 1, None, None, "", var.name, literal=number), "scalar"
    refused = _records.refused_tuple(value_type) if dtype is None else None
    if refused is not None:
        raise PayloadInferenceError(
            f"{where_text}: argument '{argument}' is {refused}; expected a scalar of a supported dtype or a tuple of "
            "1 to 16 of them (a record), or a payload made by coop.ThreadData(n)"
        )
    if dtype is None:
        raise _not_a_payload(argument, str(value_type or "of unknown type"), where_text)
    return _payloads.Payload(None, 1, None, dtype, "its type", var.name), "scalar"


def _is_slice(state, found) -> bool:
    """Whether `found` is `x[a:b]` (a static slice, or one computed in the kernel)."""
    if not (isinstance(found, ir.Expr) and found.op in ("getitem", "static_getitem")):
        return False
    if isinstance(found.index, slice):
        return True
    index = definition(state.func_ir, found.index) if isinstance(found.index, ir.Var) else None
    return (isinstance(index, ir.Expr) and index.op == "call" and python_value(state.func_ir, index.func) is slice) or (
        isinstance(index, ir.Const) and isinstance(index.value, slice)
    )


def _refuse_unknown_array(state, found, value_type, argument: str, where_text: str) -> None:
    """A payload operand that is an array but not a payload (a slice of one, a device array)
    has no length the planner knows; left alone it would be taken for one value per thread."""
    if _is_slice(state, found):
        shown = f"a slice of '{_shown(found.value.name)}'"
    elif isinstance(value_type, types.Array):
        shown = f"an array ({value_type}) made outside this kernel's payloads"
    else:
        return
    raise _not_a_payload(argument, shown, where_text)


def _not_a_payload(argument: str, shown: str, where_text: str) -> PayloadInferenceError:
    return PayloadInferenceError(
        f"{where_text}: argument '{argument}' is not a coop.ThreadData, a local array of compile-time length or a "
        f"scalar of a supported dtype (it is {shown}); expected a payload made by coop.ThreadData(n) or "
        "cuda.local.array(n, dtype) in this kernel (or in a helper inlined into it), passed whole"
    )


def _scalar_result_dtype(state, found, payloads, oracle, where_text):
    """The dtype of a value a primitive returned (`first = coop.shuffle(block, x, ...)`,
    a reduction's result): its payload's, which the kernel compiler cannot type yet."""
    called = _payloads.primitive_called(state, found)
    if called is None:
        return None
    function, marker = called
    declared = parameters(marker.name)
    if declared.result_dtype is not None or any(name in declared.named_dtypes for name in declared.results):
        return None  # a result of another dtype than the payload's
    try:
        bound = inspect.signature(function).bind(*found.args, **dict(found.kws))
    except TypeError:
        return None
    var = bound.arguments.get(declared.payload)
    if var is None:
        return None
    payload, _ = _payload(state, var, payloads, oracle, where_text)
    return payload.dtype


def _joined_payload(state, var, payloads, oracle, where_text) -> _payloads.Payload | None:
    """The payload of a variable that different paths define (`counts = coop.histogram(...)`
    in both branches of an `if`): one array payload when every path's has the same extent
    and a known, equal dtype, as the calls after the join see one array type; None where
    one path defines it. Payloads that differ, or whose dtype only a later call would fix,
    have no one extent or dtype to plan for."""
    found = definitions(state.func_ir, var)
    if len(found) < 2:
        return None
    joined = [_payloads.array_payload(state, var, payloads, oracle, found=value) for value in found]
    if all(payload is not None for payload in joined):
        shapes = {(payload.extent, payload.dtype) for payload in joined}
        if len(shapes) == 1 and joined[0].dtype is not None:
            return joined[0]
    made = [payload for payload in joined if payload is not None and payload.site is not None]
    if len(made) < 2:
        return None  # a value per thread set on several paths (`x = a if c else b`), or one payload
    lines = ", ".join(f"line {payload.site.statement.loc.line}" for payload in made)
    raise PayloadInferenceError(
        f"{where_text}: argument '{_shown(var.name)}' is a different payload on different paths ({lines}) "
        "of different extents or dtypes, or of a dtype no call has fixed yet; expected one payload per call: "
        "make it once, before the branches, with the largest extent you need, or give the paths' payloads "
        "one extent and dtype"
    )


def analyze(state, site: Site, block_shape, payloads, oracle, storages) -> Call:
    operation = site.marker.name
    where_text = context(operation, state, site.statement.loc)
    refuse_unimplemented(state, site)
    function = python_value(state.func_ir, site.call.func)
    signature = inspect.signature(function)
    bound = _arguments.bind(state, function, site.call, where_text)
    group_name = next(iter(signature.parameters))  # "group", or "warp" for warp-only operations
    declared = parameters(operation)
    arguments = _by_option_name(bound.arguments, declared.aliases, where_text)
    payload_name, memory = declared.payload, declared.memory
    for name, var in arguments.items():  # before anything reads them as a payload or an array
        if name != group_name and from_literal_unroll(state.func_ir, var):
            raise UnsupportedOperationError(literal_unroll_message(where_text, name))
    group = _groups.resolve(state, arguments[group_name], block_shape, where_text)
    payload, shape = _payload(state, arguments[payload_name], payloads, oracle, where_text)
    one_item = shape == "scalar" and declared.scalar_as_one_item  # planned as arrays of one item
    views = {}
    if memory is not None:
        memory_type = _memory_type(oracle, arguments[memory], memory, where_text)
        dtype = _memory_dtype(memory_type, operation, memory, where_text)
        _payloads.agree(payload, dtype, f"the {memory} of {where_text}", where_text, element=memory_type.dtype)
        _payloads.literal_fits(payload, payload_name, where_text)
        if view_dimensions(memory_type):
            views[memory] = view_dimensions(memory_type)
    if payload.literal is not None and payload.dtype is None:  # no memory to take a dtype from: the number's own
        number_type = unliteral(oracle.type_of(arguments[payload_name]))
        _payloads.agree(payload, _payloads.dtype_name(number_type), "its value", where_text)
    dtype = dtype_of(payload, where_text)
    _check_payload_arrays(state, declared, arguments, payload, shape, payloads, oracle, where_text)
    _adopt_filled_dtypes(state, declared, arguments, payloads, oracle, where_text)
    arrays = _named_arrays(state, declared, arguments, payload, shape, payloads, oracle, where_text)
    named = named_facts(declared, arrays, where_text)  # CallFacts.dtypes, CallFacts.extents
    views.update(_memory_options(state, declared, arguments, dtype, named[0], oracle, where_text))

    options, link_requests = {}, {}
    not_options = (group_name, payload_name, memory, *declared.values, _TEMP_STORAGE, *declared.prefix_states)
    not_options += declared.named_operands
    not_options += (_prefix_callbacks.STATE_OPERAND,)
    for name, var in arguments.items():
        if name in not_options:
            continue
        kind = declared.kinds.get(name, "")
        if kind in ("operator", "predicate") and _given(state, arguments, name):
            options[name], request = _user_function(state, kind, name, var, dtype, oracle, where_text)
            link_requests.update(request)
        elif name in declared.dtype_options:
            options[name] = _dtype_binding(state, var, name, where_text)
        else:
            options[name] = _binding(state, var, name, kind, where_text)
            if options[name].binding == "runtime":
                index = name in declared.index_dtypes
                _check_runtime_value(oracle.type_of(var), name, kind, dtype, where_text, index)
                if index:  # the dtype the value crosses as: uint64 keeps its values past int64's range
                    unsigned = str(oracle.type_of(var)) == "uint64"
                    named[0][declared.index_dtypes[name]] = "uint64" if unsigned else "int64"
    for name in declared.values:
        _check_runtime_value(oracle.type_of(arguments[name]), name, "flag", dtype, where_text)
    prefix_callback, prefix_argument, prefix_state = None, None, None
    for name, state_parameter in declared.prefix_states.items():
        if _given(state, arguments, name):
            prefix_argument, prefix_state = arguments[name], state_parameter
            state_operand = arguments.get(_prefix_callbacks.STATE_OPERAND)
            prefix_callback = _prefix_callbacks.describe(
                state, prefix_argument, state_operand, payloads, oracle, where_text, dtype
            )
            arch = state.metadata["targetoptions"]["chip"]
            symbol = _prefix_callbacks.prefix_callback_symbol(prefix_callback, dtype)
            options[name] = _engine.OptionBinding.fixed(f"user:{symbol}")
            link_requests[symbol] = functools.partial(
                _prefix_callbacks.compile_prefix_callback, prefix_callback, dtype, arch, where_text, state
            )
    if prefix_callback is None and _prefix_callbacks.STATE_OPERAND in arguments:
        raise InvalidArgumentError(
            f"{where_text}: argument '{_prefix_callbacks.STATE_OPERAND}' is given without a prefix_op; the third "
            "operand is the state of a StatefulFunction prefix_op (an operator is given as scan_op=)"
        )
    options = {name: binding for name, binding in options.items() if binding.binding != "omitted"}
    for name in declared.options_of("scalar_output"):
        if name in options:
            _check_aggregate_array(state, arguments[name], payloads, oracle, dtype, name, where_text)
    facts = _engine.CallFacts(
        operation,
        group,
        dtype,
        payload.extent,
        options,
        where(state, site.statement.loc),
        "array" if one_item else shape,
        views,
        *named,
    )
    operands = {payload_name: arguments[payload_name]}
    if memory is not None:
        operands[memory] = arguments[memory]
    operands.update({name: arguments[name] for name in (*declared.values, *declared.named_operands)})
    if shape == "array" or one_item:  # else (CUB takes the scalar) its result comes back through the result slot
        returned = [payload for payload in payloads if isinstance(payload, _payloads.Result) and payload.site is site]
        for spec, result in zip(declared.result_specs, returned):
            operands[spec.name] = result.var if result.var is not None else site.statement.target
    one_item_dtypes = {}
    if one_item:
        one_item_dtypes[payload_name] = dtype
        for name in declared.named_operands:
            if name in declared.named_dtypes:
                one_item_dtypes[name] = named[0][declared.named_dtypes[name]]
    operands.update({name: arguments[name] for name, binding in options.items() if binding.binding == "runtime"})
    if prefix_callback is not None:
        operands[prefix_state] = prefix_callback.state_var
    temp_storage = None
    if _given(state, arguments, _TEMP_STORAGE):
        temp_storage = _storage_name(state, arguments[_TEMP_STORAGE], storages, where_text)
    memories = [memory] if memory is not None else []
    memories += [name for name in declared.memory_options if _given(state, arguments, name)]
    return Call(
        site,
        facts,
        operands,
        payload,
        temp_storage,
        link_requests=link_requests,
        prefix_callback=prefix_callback,
        prefix_argument=prefix_argument,
        one_item=one_item_dtypes,
        reads_memory_as_runs=any(name not in views for name in memories),
    )


def _memory_options(state, declared, arguments, dtype: str, dtypes: dict, oracle, where_text: str) -> dict:
    """The device arrays given as options (a run-length decode's relative offsets into memory): each
    fills the named dtype the catalog types it by in `dtypes` (or holds the call's dtype); returns
    the strided views among them, as CallFacts.strided_views takes them."""
    views = {}
    for name in declared.memory_options:
        if not _given(state, arguments, name):
            continue
        memory_type = _memory_type(oracle, arguments[name], name, where_text)
        held = _payloads.dtype_name(memory_type.dtype)
        if name in declared.named_dtypes:
            # The arrays that gave the facts before it: the payloads named_facts read.
            givers = {
                fact: other
                for other, fact in declared.named_dtypes.items()
                if fact in dtypes and other != name and _given(state, arguments, other)
            }
            _fill(dtypes, declared.named_dtypes[name], held, name, givers, where_text)
        elif held != dtype:
            raise InvalidArgumentError(
                f"{where_text}: argument '{name}' holds {memory_type.dtype}; expected a device array of the "
                f"payload's dtype {dtype}"
            )
        if view_dimensions(memory_type):
            views[name] = view_dimensions(memory_type)
    return views


def _by_option_name(arguments, aliases: dict, where_text: str) -> dict:
    """The call's arguments with an option given by another accepted name under its own."""
    named = {}
    for name, var in arguments.items():
        option = aliases.get(name, name)
        if option in named:
            raise TypeError(f"{where_text}: '{name}' and '{option}' are the same option; give one of them")
        named[option] = var
    return named


def _check_payload_arrays(state, declared, arguments, payload, shape, payloads, oracle, where_text) -> None:
    """Arrays read alongside the payload (exchange's ranks and valid_flags) hold the
    element dtype the catalog gives them, and as many items as the payload."""
    for name, element in declared.elements.items():
        if not _given(state, arguments, name):
            continue
        array, _ = _payload(state, arguments[name], payloads, oracle, where_text, name)
        _payloads.agree(array, element, f"argument '{name}' of {where_text}", where_text)
        if shape == "array" and name not in declared.named_extents:
            _check_same_extent(payload, array, arguments[declared.payload].name, name, where_text)


def _adopt_filled_dtypes(state, declared, arguments, payloads, oracle, where_text) -> None:
    """An untyped array typed by a named dtype that a dtype option fills takes the option's dtype.
    Where the option is omitted it takes the dtype the typed arrays of that fact give (relative
    offsets the kernel typed), else the named dtype the option follows, at least 32 bits wide (a
    run-length decode's lengths'), else the option's default: as the engine fills the fact. A typed
    array keeps its own dtype: the engine refuses one that disagrees with the option given."""
    for fact, option in declared.dtype_fills.items():
        typed = [
            name for name, named in declared.named_dtypes.items() if named == fact and _given(state, arguments, name)
        ]
        if not typed:
            continue
        arrays = {name: _fact_array(state, declared, arguments, name, payloads, oracle, where_text) for name in typed}
        binding = _dtype_binding(state, arguments[option], option, where_text) if option in arguments else None
        if binding is not None and binding.binding == "static":
            dtype = binding.value
        else:
            given = [array_dtype for _, array_dtype in arrays.values() if array_dtype is not None]
            dtype = (
                given[0] if given else _followed_dtype(state, declared, arguments, option, payloads, oracle, where_text)
            )
        for array, array_dtype in arrays.values():
            if array_dtype is None:
                _payloads.agree(array, dtype, f"argument '{option}' of {where_text}", where_text)


def _fact_array(state, declared, arguments, name, payloads, oracle, where_text):
    """(the payload, or None for a device array; its dtype, or None while untyped) of an array
    passed for a parameter the catalog types by a named dtype."""
    if name in declared.memory_options:
        memory_type = _memory_type(oracle, arguments[name], name, where_text)
        return None, _payloads.dtype_name(memory_type.dtype)
    array, _ = _payload(state, arguments[name], payloads, oracle, where_text, name)
    return array, array.dtype


def _followed_dtype(state, declared, arguments, option, payloads, oracle, where_text) -> str:
    """The dtype an omitted dtype option takes where no array gives its fact: the named dtype it
    follows (OptionSpec::default_like), at least 32 bits wide, where the array typed by it is typed;
    else its default."""
    like = declared.dtype_likes.get(option)
    for name, fact in declared.named_dtypes.items():
        if like is None or fact != like or not _given(state, arguments, name):
            continue
        dtype = _fact_array(state, declared, arguments, name, payloads, oracle, where_text)[1]
        if dtype is not None:
            return _engine.at_least_32_bits(dtype)  # as the engine fills the fact
    return declared.defaults[option]


def _named_arrays(state, declared, arguments, payload, shape, payloads, oracle, where_text) -> dict:
    """The arrays given for the parameters the catalog types by named facts, as (payload,
    shape) by parameter; one whose length is not a named fact is shaped like the payload."""
    arrays = {}
    for name in {**declared.named_dtypes, **declared.named_extents}:
        if not _given(state, arguments, name) or name in declared.memory_options:
            continue
        arrays[name] = _payload(state, arguments[name], payloads, oracle, where_text, name)
        if name in declared.named_operands and name not in declared.named_extents and arrays[name][1] != shape:
            given = {"array": "a ThreadData or array", "scalar": "one value per thread"}
            raise InvalidArgumentError(
                f"{where_text}: argument '{name}' is {given[arrays[name][1]]} but '{_shown(arguments[declared.payload].name)}' "
                f"is {given[shape]}; expected both alike"
            )
        if shape == "array" and name not in declared.named_extents:
            _check_same_extent(payload, arrays[name][0], arguments[declared.payload].name, name, where_text)
    return arrays


def named_facts(declared, arrays: dict, where_text: str) -> tuple[dict, dict]:
    """CallFacts.dtypes and .extents from `arrays` ((payload, shape) by parameter given): each
    name the catalog types a parameter by gets the dtype, or the length, of the array passed
    for it (radix sort's ValueT[N] values, a histogram's CounterT[bins] counters)."""
    dtypes, extents, givers = {}, {}, {}
    for name, (array, shape) in arrays.items():
        if name in declared.named_dtypes:
            _fill(dtypes, declared.named_dtypes[name], dtype_of(array, where_text), name, givers, where_text)
        if name in declared.named_extents:
            fact = declared.named_extents[name]
            if shape != "array":
                raise InvalidArgumentError(
                    f"{where_text}: argument '{name}' is one value per thread; expected an array (its length is {fact})"
                )
            _fill(extents, fact, array.extent, name, givers, where_text)
    return dtypes, extents


def _fill(facts: dict, fact: str, value, argument: str, givers: dict, where_text: str) -> None:
    """One value per named fact: the arrays a name types must agree on it."""
    if fact in facts and facts[fact] != value:
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' gives {fact} = {value} but '{givers[fact]}' gives {facts[fact]}; "
            f"expected one {fact} for every array it types"
        )
    facts[fact], givers[fact] = value, argument


def _given(state, arguments, name: str) -> bool:
    """Whether the call passes `name` a value other than None."""
    return name in arguments and _binding(state, arguments[name]).binding != "omitted"


def result_payloads(state, sites, payloads, oracle, block_shape) -> list:
    """The fresh payloads primitives return (exchange, shuffle, sorts), in program order,
    each shaped like the operand it starts as (the payload, or a sort's values): later
    calls take them as payloads, and the rewrite allocates each where its call was. A call
    returning several returns them as a tuple, each allocated under a variable of its own. A
    scalar result is not one, unless the call takes one value per thread as a one-item array."""
    results = []
    for site in sites:
        if not (is_primitive(site) and site.marker.implemented and parameters(site.marker.name).results):
            continue
        declared = parameters(site.marker.name)
        where_text = context(site.marker.name, state, site.statement.loc)
        # bound now, not when a call before it is analyzed finds no result to read
        bound = _arguments.bind(state, python_value(state.func_ir, site.call.func), site.call, where_text)
        arguments = _by_option_name(bound.arguments, declared.aliases, where_text)
        var = arguments.get(declared.payload)
        if var is None:
            continue
        known = [*payloads, *results]
        source, shape = _payload(state, var, known, oracle, where_text)
        scalar = shape == "scalar"
        if scalar and not declared.scalar_as_one_item:
            continue
        returned = [_is_returned(state, declared, arguments, spec) for spec in declared.result_specs]
        several = returned.count(True) > 1
        scope = state.func_ir.blocks[site.label].scope
        position = 0
        for spec, is_returned in zip(declared.result_specs, returned):
            origin = source
            if spec.starts_as not in ("", declared.payload) and spec.starts_as in arguments:
                origin, _ = _payload(state, arguments[spec.starts_as], known, oracle, where_text, spec.starts_as)
            # A result the call does not return is still the method's operand: it gets a variable of its own.
            own = _ir.new_var(scope, spec.name, site.statement.loc) if several or scalar or not is_returned else None
            extent, dtype = _shaped_by_options(state, declared, arguments, spec, where_text)
            if spec.extent_rule == "batches_per_lane" and not scalar:
                function = python_value(state.func_ir, site.call.func)
                group = next(iter(inspect.signature(function).parameters))
                found = _groups.describe(state, arguments[group], block_shape, where_text)
                lanes = found.size if found.kind in ("warp", "threads_within_warp") else 1  # others: refused later
                extent = -(-origin.extent // lanes)
            results.append(
                _payloads.Result(
                    site,
                    origin,
                    fixed_dtype=dtype or spec.dtype,
                    position=position if several and is_returned else None,
                    var=own,
                    scalar=scalar and extent is None,
                    returned=is_returned,
                    extent=extent,
                )
            )
            position += is_returned
    return results


def _chosen(state, declared, arguments, option: str):
    """The text of a static option as given, its default where it is omitted, None at run time."""
    binding = _binding(state, arguments[option]) if option in arguments else None
    if binding is None or binding.binding == "omitted":
        return declared.defaults[option]
    return binding.value


def _shaped_by_options(state, declared, arguments, spec, where_text):
    """(items per thread, dtype) of a result its options shape (a histogram's bins_per_thread
    counters of counter_dtype), each None where they do not. A count that is not a positive
    compile-time one counts as the default here, or as none where the count is required
    (analysis refuses it either way); a dtype the option does not take is refused now, before
    a call reading the result could blame itself."""
    extent = dtype = None
    if spec.extent_option is not None:
        text = _chosen(state, declared, arguments, spec.extent_option)
        extent = int(text) if text is not None and text.isdigit() and int(text) > 0 else None
        default = declared.defaults[spec.extent_option]  # "" for a required one: analysis refuses the call
        extent = extent or (int(default) if default else None)
    if spec.dtype_option is not None:
        given = arguments.get(spec.dtype_option)
        binding = _dtype_binding(state, given, spec.dtype_option, where_text) if given is not None else None
        dtype = binding.value if binding is not None and binding.binding == "static" else None
        dtype = dtype or declared.defaults[spec.dtype_option]
        allowed = declared.dtype_options[spec.dtype_option]
        if dtype not in allowed:
            raise InvalidArgumentError(
                f"{where_text}: argument '{spec.dtype_option}' = '{dtype}' is not allowed; expected one of: "
                f"{', '.join(allowed)}"
            )
    return extent, dtype


def _is_returned(state, declared, arguments, spec) -> bool:
    """Whether the call returns this result: always, or where one of the static option values
    it is returned under holds (an omitted option reads as its default). A value that is not
    one the option takes matches none; analysis refuses it with the choices."""
    if not spec.returned_when:
        return True
    for option, value in spec.returned_when:
        chosen = _chosen(state, declared, arguments, option)
        if isinstance(chosen, str) and chosen.strip().lower().replace("-", "_") == value:
            return True
    return False


def needs_a_typed_payload(site: Site) -> bool:
    """Whether the call's dtype comes from its payload (not from a memory operand):
    such calls are analyzed after those that type payloads. An operation the engine
    does not implement has no catalog entry; analyze rejects it."""
    return not site.marker.implemented or parameters(site.marker.name).memory is None


def _storage_name(state, var, storages, where_text) -> str:
    found = definition(state.func_ir, var)
    for storage in storages:
        if found is storage.site.call:
            return storage.name
    raise UnsupportedOperationError(
        f"{where_text}: argument '{_TEMP_STORAGE}' is not a coop.TempStorage made in this kernel"
    )


def refuse_unimplemented(state, site: Site) -> None:
    """A call this cuda.coop declares but does not implement yet is refused, naming it."""
    if not site.marker.implemented:
        raise UnsupportedOperationError(
            f"{context(site.marker.name, state, site.statement.loc)}: coop.{site.marker.name} ({site.marker.family}) "
            "is not implemented by this cuda.coop yet"
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
