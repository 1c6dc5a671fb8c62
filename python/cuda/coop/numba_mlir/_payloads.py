"""Stage 3a, payloads: each ThreadData's extent, alignment and dtype. The extent
comes from a constant or a kernel argument (a different value is a different
specialization); the dtype from the constructor or from the primitives that use
the payload, which must agree."""

from __future__ import annotations

import dataclasses
import functools
import inspect

import numba_cuda_mlir
import numpy as np
from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.core import errors as numba_errors
from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

from .. import _engine
from .._core.api.storage import ThreadData
from .._core.errors import InvalidArgumentError, PayloadInferenceError, UnsupportedOperationError
from .._core.markers import marker_of
from . import _records
from ._dataclass import refuse_literal_retry
from ._find import Site
from ._ir import definition, from_literal_unroll, is_folded, literal_unroll_message, python_value, replace_value
from ._location import where


@dataclasses.dataclass
class Payload:
    site: Site | None  # the ThreadData constructor; None for the user's own local array
    extent: int
    alignment: int | None
    dtype: str | None = None  # engine dtype name once known
    dtype_source: str = ""  # what fixed the dtype, for conflict messages
    label: str = ""  # the variable, for a local array
    literal: object = None  # a scalar payload written as a number: it takes the call's memory dtype
    element: object = None  # of records: the structured dtype (Numba Record) that typed it, naming its fields

    @property
    def name(self) -> str:
        return self.label or self.site.statement.target.name

    @property
    def shown(self) -> str:
        """How messages name it: the user's variable, or "the value" for an expression's temporary."""
        name = self.name
        return "the value" if name.startswith("$") else f"payload '{name.split('.')[0]}'"


class Result(Payload):
    """A fresh payload a primitive returns (exchange, shuffle, a sort's keys and values): as
    many items as the payload it was made from, and the same dtype, which it shares (typing
    either types both), unless CUB fixes its dtype (a rank's int32).

    A call returning several (a sort's keys and values) returns them as a tuple: `position`
    is this one's place in it, and `var` the variable the rewrite allocates it under (None:
    the call's own target, for a call returning one). `scalar`: the call takes one value per
    thread as a one-item array, and returns this result's item. `returned`: False for a result
    the method writes but this call's options do not return (a discontinuity's tails in mode
    "heads"): it has a variable of its own and no place in what the call returns. `extent`: its
    items per thread where the call's options give them (a histogram's bins_per_thread)."""

    def __init__(
        self,
        site: Site,
        source: Payload,
        *,
        fixed_dtype=None,
        position=None,
        var=None,
        scalar=False,
        returned=True,
        extent=None,
    ):
        if extent is not None:  # shaped by the call's options (a histogram's counters), not by its source
            super().__init__(site, extent, None)
        else:
            super().__init__(site, 1 if scalar else source.extent, None if scalar else source.alignment)
        self.source = source
        self.fixed_dtype = fixed_dtype
        self.position, self.var, self.scalar, self.returned = position, var, scalar, returned

    @property
    def dtype(self):
        return self.fixed_dtype or self.source.dtype

    @dtype.setter
    def dtype(self, value):
        if hasattr(self, "source") and not self.fixed_dtype:
            self.source.dtype = value

    @property
    def dtype_source(self):
        return "the call that returns it" if self.fixed_dtype else self.source.dtype_source

    @dtype_source.setter
    def dtype_source(self, value):
        if hasattr(self, "source") and not self.fixed_dtype:
            self.source.dtype_source = value

    @property
    def element(self):
        return None if self.fixed_dtype else self.source.element

    @element.setter
    def element(self, value):
        if hasattr(self, "source") and not self.fixed_dtype:
            self.source.element = value

    @property
    def name(self) -> str:
        return self.var.name if self.var is not None else super().name


def returned_by(state, var, payloads, *, scalar=False, found=None):
    """The result a primitive returned that `var` holds: the call's value itself, or one item
    of the tuple a call returning several gives (`keys, values = coop.radix_sort_pairs(...)`,
    `pair[1]`); None if it holds none. `scalar` selects results of one value per thread;
    `found` is one of several definitions of `var` (where paths join) to read instead of its one."""
    found = definition(state.func_ir, var) if found is None else found
    position = None
    if isinstance(found, ir.Expr) and found.op in ("static_getitem", "getitem"):
        index = found.index if found.op == "static_getitem" else python_value(state.func_ir, found.index)
        if not isinstance(index, int):
            return None
        position, found = index, definition(state.func_ir, found.value)
        if isinstance(found, ir.Expr) and found.op == "exhaust_iter":
            found = definition(state.func_ir, found.value)
    for payload in payloads:
        if (
            isinstance(payload, Result)
            and payload.returned
            and payload.site.call is found
            and (payload.scalar, payload.position)
            == (
                scalar,
                position,
            )
        ):
            return payload
    return None


def dtype_name(numba_type) -> str | None:
    """The engine's dtype name of a Numba scalar type, or of a tuple of them (a record:
    "record(float32,float32)"), or None if it has none."""
    if isinstance(numba_type, types.BaseTuple):
        return _records.record_of_tuple(numba_type, dtype_name)
    if isinstance(numba_type, types.Record):
        return _records.record_of_structured(numba_type, dtype_name)
    name = str(numba_type)
    names = {"bool": "bool", "boolean": "bool", "float16": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16"}
    if name in names:
        return names[name]
    if name in {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}:
        return name
    if name in {"complex64", "complex128"}:
        return name
    return None


def plain_constant(value):
    """A NumPy integer constant (np.int64(32)) as the Python int it stands for."""
    return int(value) if isinstance(value, np.integer) else value


def structured(value):
    """The Numba Record of a NumPy structured dtype (or of a Record) given as a dtype, else None."""
    if isinstance(value, types.Record):
        return value
    if isinstance(value, np.dtype) and value.fields is not None:
        return from_dtype(value)
    return None


def explicit_dtype(value) -> str | None:
    """The engine's dtype name of a dtype a user gave (NumPy, Numba or a name), or None."""
    if value is None:
        return None
    name = dtype_name(value)
    if name is None:
        try:
            name = dtype_name(np.dtype(value).name)
        except TypeError:
            name = None
    return name


_UNKNOWN = "<unknown>"


def dtype_value(state, var):
    """The dtype an argument names: a constant or global, a kernel array argument's
    `.dtype` (its element type, known when the kernel compiles), or a constructor of NumPy
    or Numba dtypes called with constants (np.dtype("int32"), types.NPDatetime("ns"))."""
    func_ir = state.func_ir
    value = python_value(func_ir, var)
    if value is not None:
        return value
    found = definition(func_ir, var)
    if isinstance(found, (ir.Const, ir.Global, ir.FreeVar)):
        return found.value  # None written out: left to inference, as if omitted
    if isinstance(found, ir.Expr) and found.op == "getattr" and found.attr == "dtype":
        array = definition(func_ir, found.value)
        if isinstance(array, ir.Arg) and isinstance(state.args[array.index], types.Array):
            return state.args[array.index].dtype
    if isinstance(found, ir.Expr) and found.op == "call" and not found.kws:
        function = python_value(func_ir, found.func)
        arguments = [python_value(func_ir, argument) for argument in found.args]
        pure = function is np.dtype or (inspect.isclass(function) and issubclass(function, types.Type))
        if pure and all(argument is not None for argument in arguments):
            try:
                return function(*arguments)
            except (TypeError, ValueError):
                pass
    return _UNKNOWN if found is not None else None


def argument_or_constant(state, var, context: str, argument: str):
    """What `var` is at compile time: a kernel argument's value (the kernel is specialized
    on it), else the constant it is bound to (None where it is not one)."""
    if isinstance(definition(state.func_ir, var), ir.Arg):
        return compile_time_int(state, var, context, argument)
    return python_value(state.func_ir, var)


def compile_time_int(state, var, context: str, argument: str) -> int:
    """A constant, a global or closure value, or a kernel argument (specialized on
    its value through Numba's literal retry)."""
    if from_literal_unroll(state.func_ir, var):
        raise UnsupportedOperationError(literal_unroll_message(context, argument))
    found = definition(state.func_ir, var)
    if isinstance(found, (ir.Const, ir.Global, ir.FreeVar)) and isinstance(plain_constant(found.value), int):
        return plain_constant(found.value)
    folded = plain_constant(python_value(state.func_ir, var)) if is_folded(state.func_ir, var) else None
    if isinstance(folded, int) and not isinstance(folded, bool):  # 2 * ITEMS
        return folded
    if isinstance(found, ir.Expr) and found.op == "getattr" and found.attr == "items_per_thread":
        made = definition(state.func_ir, found.value)  # another payload's extent: ThreadData(items.items_per_thread)
        if isinstance(made, ir.Expr) and made.op == "call" and python_value(state.func_ir, made.func) is ThreadData:
            bound = _bind(made, context)
            return compile_time_int(state, bound.arguments["items_per_thread"], context, argument)
    if isinstance(found, ir.Arg):
        argument_type = state.args[found.index]
        if isinstance(argument_type, types.IntegerLiteral):
            return argument_type.literal_value
        if isinstance(argument_type, types.Integer):
            refuse_literal_retry(state, context, argument)
            raise numba_errors.ForceLiteralArg({found.index}, loc=var.loc)
    raise PayloadInferenceError(
        f"{context}: argument '{argument}' is not a compile-time integer; expected a constant (arithmetic on "
        "constants counts: 2 * ITEMS) or a kernel argument"
    )


def thread_data(state, site: Site) -> Payload:
    context = f"coop.ThreadData ({where(state, site.statement.loc)})"
    bound = _bind(site.call, context)
    for name, var in bound.arguments.items():
        if from_literal_unroll(state.func_ir, var):
            raise UnsupportedOperationError(literal_unroll_message(context, name))
    extent = compile_time_int(state, bound.arguments["items_per_thread"], context, "items_per_thread")
    if extent < 1:
        raise PayloadInferenceError(f"{context}: argument 'items_per_thread' = {extent} is not allowed; expected >= 1")
    alignment = None
    if "alignment" in bound.arguments and "alignas" in bound.arguments:
        raise PayloadInferenceError(f"{context}: arguments 'alignment' and 'alignas' name one thing; give one")
    spelled = "alignment" if "alignment" in bound.arguments else "alignas"
    if spelled in bound.arguments:
        alignment = _alignment(state, bound.arguments[spelled])
        if alignment is not None and (
            isinstance(alignment, bool)
            or not isinstance(alignment, int)
            or alignment < 1
            or alignment & (alignment - 1)
        ):
            raise PayloadInferenceError(
                f"{context}: argument '{spelled}' = {alignment!r} is not allowed; expected a constant power of two"
            )
    payload = Payload(site, extent, alignment)
    if "dtype" in bound.arguments:
        value = dtype_value(state, bound.arguments["dtype"])
        record = structured(value)
        payload.dtype = dtype_name(record) if record is not None else explicit_dtype(value)
        payload.element = record
        if payload.dtype is None and value is not None:  # explicit None means "infer it"
            shown = value if value is not _UNKNOWN else "a value not known at compile time"
            why = _records.refused_structured(record, dtype_name) if record is not None else None
            expected = (
                f"it is {why}"
                if why
                else "expected a numeric NumPy or Numba dtype written as a constant: bool, int8-int64, uint8-uint64, "
                "float16, bfloat16, float32, float64, complex64 or complex128, or an aligned NumPy structured dtype "
                "of them"
            )
            raise PayloadInferenceError(f"{context}: argument 'dtype' = {shown!r} is not allowed; {expected}")
        payload.dtype_source = "its dtype argument"
    return payload


def _bind(call, context):
    try:
        return inspect.signature(ThreadData).bind(*call.args, **dict(call.kws))
    except TypeError as error:
        raise PayloadInferenceError(f"{context}: {error}") from None


def _alignment(state, var):
    """The alignment argument's constant; an explicit None means it was left out."""
    found = definition(state.func_ir, var)
    if isinstance(found, (ir.Const, ir.Global, ir.FreeVar)):
        return plain_constant(found.value)
    return _UNKNOWN


def fold_attributes(state, payloads) -> None:
    """`payload.items_per_thread` in the kernel reads the payload's extent, a
    compile-time constant (a static loop bound, a ThreadData extent)."""
    extents = {payload.site.statement.target.name: payload.extent for payload in payloads if payload.site is not None}
    if not extents:
        return
    for block in state.func_ir.blocks.values():
        for statement in block.body:
            value = getattr(statement, "value", None)
            if not (isinstance(statement, ir.Assign) and isinstance(value, ir.Expr) and value.op == "getattr"):
                continue
            if value.attr != "items_per_thread":
                continue
            made = _origin(state, definition(state.func_ir, value.value))
            owner = next((name for name in extents if _made_by(state, name, made)), None)
            if owner is not None:
                replace_value(state.func_ir, statement, ir.Const(extents[owner], statement.loc))


def _origin(state, made):
    """What made a payload: a call that fills its argument and returns it stands for that
    argument's maker (`items = coop.load(block, source, coop.ThreadData(3))` is the ThreadData),
    so the payload it returns has every attribute of the one passed in."""
    filled = filled_by(state, made)
    return made if filled is None else _origin(state, definition(state.func_ir, filled))


def primitive_called(state, found):
    """(function, marker) of the implemented primitive `found` calls, or None."""
    if not (isinstance(found, ir.Expr) and found.op == "call"):
        return None
    function = python_value(state.func_ir, found.func)
    marker = marker_of(function)
    if marker is None or marker.family in ("groups", "storage") or not marker.implemented:
        return None
    return function, marker


@functools.cache
def _filled_operand(operation: str) -> str | None:
    """The payload operand `operation` fills in place and returns (load's items), as the catalog says."""
    return next((each["name"] for each in _engine.operation_operands(operation) if each["role"] == "payload_out"), None)


def filled_by(state, found):
    """The payload argument a primitive call fills in place and returns, if `found` is one."""
    called = primitive_called(state, found)
    if called is None:
        return None
    function, marker = called
    fills = _filled_operand(marker.name)
    try:
        bound = inspect.signature(function).bind(*found.args, **dict(found.kws))
    except TypeError:
        return None
    return bound.arguments.get(fills) if fills is not None else None


def _made_by(state, name, made) -> bool:
    """Whether `made` is the expression that defines payload variable `name`."""
    return any(value is made for value in state.func_ir._definitions.get(name, []))


def agree(payload: Payload, dtype: str, source: str, context: str, element=None) -> None:
    """Records that `source` needs `payload` to hold `dtype` (of records: `element`, the structured
    dtype whose field names its items take, if the source has one)."""
    if payload.dtype is None:
        payload.dtype, payload.dtype_source = dtype, source
    if payload.dtype == dtype and payload.element is None and isinstance(element, types.Record):
        payload.element = element
    elif payload.dtype != dtype:
        raise PayloadInferenceError(
            f"{context}: {payload.shown} holds {payload.dtype} (from {payload.dtype_source}) but {source} "
            f"holds {dtype}; make them agree"
        )


def literal_fits(payload: Payload, argument: str, context: str) -> None:
    """A number written as a call's value stands for itself in the payload's dtype, or is refused."""
    value = payload.literal
    if value is None or payload.dtype is None:
        return
    kind = np.dtype(payload.dtype)
    try:
        converted = kind.type(value)
        exact = converted == value and (kind.kind != "b" or isinstance(value, bool))
    except (OverflowError, ValueError, TypeError):
        exact = False
    if not exact:
        raise InvalidArgumentError(
            f"{context}: argument '{argument}' = {value!r} is not allowed; expected a value the destination's dtype "
            f"{payload.dtype} holds exactly (the number is converted to it)"
        )


def infer_from_writes(state, payload: Payload, oracle, context: str) -> None:
    """A payload no primitive types may still be typed by what the kernel writes into
    it (`items[i] = value`); every write must agree."""
    for block in state.func_ir.blocks.values():
        for statement in block.body:
            if isinstance(statement, (ir.SetItem, ir.StaticSetItem)) and statement.target.name == payload.name:
                dtype = dtype_name(oracle.type_of(statement.value))
                if dtype is not None:
                    agree(payload, dtype, f"the write at line {statement.loc.line}", context)


def array_payload(state, var, payloads, oracle, found=None) -> Payload | None:
    """The payload `var` holds, if it is an array one: a ThreadData or a payload a
    primitive returned (one of `payloads`), or the user's local array; `found` as for
    returned_by."""
    found = definition(state.func_ir, var) if found is None else found
    made = next(
        (
            payload
            for payload in payloads
            if payload.site is not None and found is payload.site.call and not isinstance(payload, Result)
        ),
        None,
    )
    made = made or returned_by(state, var, payloads, found=found)
    return made if made is not None else local_array(state, var, oracle, found=found)


def local_array(state, var, oracle, found=None) -> Payload | None:
    """The user's `cuda.local.array(n, dtype)` of compile-time length as a payload."""
    found = definition(state.func_ir, var) if found is None else found
    if not (isinstance(found, ir.Expr) and found.op == "call"):
        return None
    if python_value(state.func_ir, found.func) is not numba_cuda_mlir.cuda.local.array:
        return None
    shape = found.args[0] if found.args else dict(found.kws).get("shape")  # local.array(n, ...) or (shape=n, ...)
    if shape is None:
        return None
    extent = argument_or_constant(state, shape, f"cuda.local.array ({where(state, found.loc)})", "shape")
    if isinstance(extent, tuple) and len(extent) == 1:
        extent = extent[0]  # shape=(n,)
    array_type = oracle.type_of(var)
    if not isinstance(extent, int) or not isinstance(array_type, types.Array) or array_type.ndim != 1:
        return None
    element = array_type.dtype if isinstance(array_type.dtype, types.Record) else None
    return Payload(
        None, extent, None, dtype_name(array_type.dtype), "its local array declaration", var.name, element=element
    )
