"""Block prefix callbacks (CUB's BlockPrefixCallbackOp), in three spellings.

A `prefix_op` is an object made in the kernel, `RunningTotal(total)`, whose class
defines `__call__(self, block_aggregate)`: CUB calls it in every lane of the first
warp with the block's aggregate and seeds the scan with lane 0's return value. Its
state is one `cuda.local.array` given to the constructor, so each lane carries its
own copy from tile to tile, as CUB's callback objects do in registers. Or, as the
seed spells it, a `StatefulFunction(op, dtype)` whose `op(state, block_aggregate)`
gets the state the scan takes as its third operand (`exclusive_sum(block, x, state,
prefix_op=sf)`), a one-item ThreadData or local array of `dtype`. Or a stateless
function `f(block_aggregate) -> prefix` (a device function or a plain one), which
keeps nothing from tile to tile.

The object never exists at run time. `__init__` runs once on the host with a
stand-in for the array to learn which attribute holds the state and which hold
compile-time numbers; `__call__` becomes a function of (state, block_aggregate)
with `self.<attribute>` replaced by those, compiled by numba-cuda-mlir to LTO-IR
with the engine's C ABI (`T symbol(void* state, T block_aggregate)`, by pointer for
16-bit floats, complex values and records, a record's fields read and written at the
offsets C++ lays them out at) and linked with the bundle. The kernel passes the array's address."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.errors import InvalidArgumentError
from . import _payloads
from ._ir import close_over_aliases, definition, python_value
from ._linked_functions import (
    check_result_kind,
    check_returns_a_value,
    compile_device_function,
    compiled_once,
    passes_by_pointer,
    symbol_for,
    with_device_helpers,
)
from ._location import where
from ._records import is_record

_STATE = "_coop_prefix_state"  # the state parameter of the rewritten __call__

# The state a stateless function's callback is passed: it reads none, so the call's own
# scratch (a block scan always has some) stands in for the pointer the ABI takes.
SCRATCH_STANDS_IN = "the call's scratch"


@dataclasses.dataclass(frozen=True)
class PrefixCallback:
    name: str  # how messages and symbols name it: the class's or the function's
    make_function: object  # () -> the Python function f(state, block_aggregate) to compile
    identity: tuple  # what shapes the compiled code, for its symbol and the compile cache
    state_dtype: str
    state_extent: int
    state_var: ir.Var  # the kernel's local array or ThreadData
    constructor: ir.Assign | None  # `prefix = RunningTotal(total)`, removed by the rewrite; None for a StatefulFunction


@dataclasses.dataclass(frozen=True)
class _ClassCallback:
    """What a class-based callback's __call__ is rewritten with."""

    cls: type
    state_attribute: str
    constants: tuple  # (attribute, value) pairs fixed at compile time

    @property
    def name(self) -> str:
        return self.cls.__qualname__


class _StateStandIn:
    """What `__init__` receives for the state array when it runs on the host."""

    def __init__(self, argument: str):
        self.argument = argument

    def __repr__(self) -> str:
        return f"<the local array {self.argument}>"


_EXPECTED = (
    "a function f(block_aggregate) -> prefix, a StatefulFunction, or an object of a class with "
    "__call__(self, block_aggregate), constructed in this kernel with its state, one cuda.local.array (e.g. "
    "prefix_op=RunningTotal(total))"
)


def describe(state, var, state_operand, payloads, oracle, where_text: str, dtype: str) -> PrefixCallback:
    """The callback `var` names for a scan of `dtype`: a StatefulFunction with the scan's
    `state` operand, or an object made in the kernel (its class, its state array and its
    constants)."""
    from .._core.api.stateful import StatefulFunction

    stateful = python_value(state.func_ir, var)
    if isinstance(stateful, StatefulFunction):
        return _stateful_callback(state, stateful, state_operand, payloads, oracle, where_text, dtype)
    constructor = _constructor(state, var)
    if constructor is not None and python_value(state.func_ir, constructor.value.func) is StatefulFunction:
        stateful = _made_in_the_kernel(state, constructor, where_text)
        callback = _stateful_callback(state, stateful, state_operand, payloads, oracle, where_text, dtype)
        return dataclasses.replace(callback, constructor=constructor)  # exists only at compile time: removed
    function = getattr(stateful, "py_func", None) or (stateful if inspect.isfunction(stateful) else None)
    if function is not None:
        return _stateless_callback(function, state_operand, where_text)
    if state_operand is not None:
        raise InvalidArgumentError(
            f"{where_text}: argument '{STATE_OPERAND}' is given but prefix_op is not a StatefulFunction; the third "
            "operand is the state of a StatefulFunction prefix_op (an object's state is given to its constructor)"
        )
    constructor = _constructor(state, var)
    cls = python_value(state.func_ir, constructor.value.func) if constructor is not None else None
    if cls is StatefulFunction:
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' is a StatefulFunction made in the kernel; make it outside the "
            "kernel (a global or a closure variable): it is a compile-time value"
        )
    if not inspect.isclass(cls):
        value = python_value(state.func_ir, var)
        shown = getattr(value, "__qualname__", None) or (repr(value) if value is not None else var.name)
        raise InvalidArgumentError(f"{where_text}: argument 'prefix_op' = {shown} is not allowed; expected {_EXPECTED}")
    call = inspect.getattr_static(cls, "__call__", None)
    if not inspect.isfunction(call) or len(inspect.signature(call).parameters) != 2:
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' = {cls.__qualname__}(...) is not allowed; its class must define "
            "__call__(self, block_aggregate) in Python"
        )
    call_args = constructor.value
    values, states = [], {}
    for position, argument in enumerate(call_args.args):
        values.append(_argument_value(state, argument, oracle, states, where_text, cls, f"argument {position + 1}"))
    keywords = {
        name: _argument_value(state, argument, oracle, states, where_text, cls, f"argument {name!r}")
        for name, argument in call_args.kws
    }
    instance = cls.__new__(cls)
    try:
        cls.__init__(instance, *values, **keywords)
    except Exception as error:  # noqa: BLE001 (the user's __init__ may raise anything)
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op': {cls.__qualname__}.__init__ must only store its arguments (it runs "
            f"at compile time with a stand-in for the state array), but it raised {type(error).__name__}: {error}"
        ) from None
    state_attributes, constants = [], []
    for attribute, value in vars(instance).items():
        if isinstance(value, _StateStandIn):
            state_attributes.append((attribute, value))
        elif isinstance(value, (bool, int, float)):
            constants.append((attribute, value))
        else:
            raise InvalidArgumentError(
                f"{where_text}: argument 'prefix_op': {cls.__qualname__}.{attribute} holds {value!r}; expected the "
                "state array given to the constructor or a compile-time number"
            )
    if len(state_attributes) != 1:
        held = ", ".join(attribute for attribute, _ in state_attributes) or "none"
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op': {cls.__qualname__} keeps state in {held}; expected exactly one "
            "attribute holding a cuda.local.array given to its constructor (its running state)"
        )
    attribute, stand_in = state_attributes[0]
    payload, state_var = states[stand_in.argument]
    rewritten = _ClassCallback(cls, attribute, tuple(constants))
    code = cls.__call__.__code__
    identity = (cls.__module__, cls.__qualname__, code.co_code, code.co_consts, attribute, tuple(constants))
    return PrefixCallback(
        cls.__qualname__,
        lambda: _call_as_function(rewritten, where_text),
        identity,
        payload.dtype,
        payload.extent,
        state_var,
        constructor,
    )


STATE_OPERAND = "state"  # the scans' third operand: a StatefulFunction's state


def _stateful_callback(state, stateful, state_operand, payloads, oracle, where_text, dtype) -> PrefixCallback:
    """A StatefulFunction: its op is a device function (or a plain one) of (state,
    block_aggregate), or a class whose __call__(self_ptr, block_aggregate) takes the
    state as `self_ptr`; the state is the scan's third operand, one item, or for a scan
    of records (`dtype` a tuple's) one item per value it keeps (a selective scan's pair)."""
    op = stateful.op
    function = getattr(op, "py_func", None) or (op if inspect.isfunction(op) else None)
    if function is None and inspect.isclass(op) and inspect.isfunction(inspect.getattr_static(op, "__call__", None)):
        function = op.__call__
    if function is None or len(inspect.signature(function).parameters) != 2:
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' = StatefulFunction({getattr(op, '__qualname__', op)!r}, ...) is not "
            "allowed; expected its op to be a function op(state, block_aggregate) (a @cuda.jit(device=True) "
            "function) or a class with __call__(self_ptr, block_aggregate)"
        )
    check_returns_a_value(function, where_text, "prefix_op", "an op that returns the prefix")
    state_dtype = _payloads.explicit_dtype(stateful.dtype)
    if state_dtype is None:
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op': StatefulFunction's dtype {stateful.dtype!r} is not a dtype "
            "cuda.coop supports; expected a NumPy or Numba scalar dtype (np.int32, numba.float64, ...)"
        )
    if state_operand is None:
        raise InvalidArgumentError(
            f"{where_text}: argument '{STATE_OPERAND}' is missing; a StatefulFunction prefix_op needs its state as "
            f"the scan's third operand, a one-item coop.ThreadData or local array of {state_dtype} "
            "(coop.exclusive_sum(block, items, state, prefix_op=sf))"
        )
    payload = _payloads.array_payload(state, state_operand, payloads, oracle)
    if payload is None:
        raise InvalidArgumentError(
            f"{where_text}: argument '{STATE_OPERAND}' is not a coop.ThreadData or a local array of compile-time "
            f"length; expected a one-item payload of {state_dtype} holding the StatefulFunction's state"
        )
    if payload.extent != 1 and not is_record(dtype):
        raise InvalidArgumentError(
            f"{where_text}: argument '{STATE_OPERAND}' holds {payload.extent} items; expected a one-item "
            f"coop.ThreadData or local array of {state_dtype} holding the StatefulFunction's state (CUB's callback "
            "keeps one running value)"
        )
    _payloads.agree(payload, state_dtype, f"the StatefulFunction of {where_text}", where_text)
    name = stateful.name or function.__qualname__
    code = function.__code__
    identity = ("stateful", function.__module__, function.__qualname__, code.co_code, code.co_consts)
    return PrefixCallback(name, lambda: function, identity, state_dtype, payload.extent, state_operand, None)


def _stateless_callback(function, state_operand, where_text) -> PrefixCallback:
    """A function of the block aggregate alone, as CUB's callback of a scan that keeps no state."""
    parameters = len(inspect.signature(function).parameters)
    if parameters != 1 or state_operand is not None:
        advice = (
            "a StatefulFunction(op, dtype) with the state as the scan's third operand"
            if parameters == 2 or state_operand is not None
            else "a function of one argument, the block aggregate"
        )
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' = {function.__qualname__} (a function of {parameters} "
            f"argument(s){' and a state operand' if state_operand is not None else ''}) is not allowed; expected "
            f"f(block_aggregate) -> prefix, or for a callback that keeps state, {advice}"
        )

    check_returns_a_value(function, where_text, "prefix_op", "f(block_aggregate) that returns the prefix")

    def call(_state, block_aggregate):
        return function(block_aggregate)

    code = function.__code__
    identity = ("stateless", function.__module__, function.__qualname__, code.co_code, code.co_consts)
    return PrefixCallback(function.__qualname__, lambda: call, identity, "uint8", 1, SCRATCH_STANDS_IN, None)


def _made_in_the_kernel(state, constructor, where_text):
    """A StatefulFunction built in the kernel from compile-time values (a device function, a
    dtype, a name) is the one built outside it."""
    from .._core.api.stateful import StatefulFunction

    call = constructor.value
    values = [python_value(state.func_ir, arg) for arg in call.args]
    keywords = {name: python_value(state.func_ir, arg) for name, arg in call.kws}
    if any(value is None for value in [*values, *keywords.values()]):
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' is a StatefulFunction built in the kernel "
            f"({where(state, constructor.loc)}) from values known only at run time; its op, dtype and name must be "
            "compile-time values (a device function, a NumPy dtype, a string), or build it outside the kernel"
        )
    try:
        return StatefulFunction(*values, **keywords)
    except TypeError as error:
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op' = StatefulFunction(...) ({where(state, constructor.loc)}): {error}"
        ) from None


def _constructor(state, var):
    """The statement `var = Class(...)` that made the object, if there is exactly one."""
    found = definition(state.func_ir, var)
    if not (isinstance(found, ir.Expr) and found.op == "call"):
        return None
    for block in state.func_ir.blocks.values():
        for statement in block.body:
            if isinstance(statement, ir.Assign) and statement.value is found:
                return statement
    return None


def _argument_value(state, var, oracle, states, where_text, cls, label):
    """A compile-time number as itself; a local array as a stand-in recorded in `states`."""
    local = _payloads.local_array(state, var, oracle)
    if local is not None:
        if local.dtype is None:
            raise InvalidArgumentError(
                f"{where_text}: argument 'prefix_op': {label} of {cls.__qualname__} is a local array of unknown dtype"
            )
        states[var.name] = (local, var)
        return _StateStandIn(var.name)
    value = python_value(state.func_ir, var)
    if isinstance(value, (bool, int, float)):
        return value
    raise InvalidArgumentError(
        f"{where_text}: argument 'prefix_op': {label} of {cls.__qualname__} is not allowed; expected a "
        "cuda.local.array of compile-time length (the state, one per lane: CUB calls the callback in every lane of "
        "the first warp) or a compile-time number"
    )


def check_only_used_as_prefix_op(state, callbacks: list, prefix_arguments: set) -> None:
    """The object exists only at compile time: any use of it (or of an alias of it)
    but as a scan's prefix_op has no meaning."""
    callbacks = [callback for callback in callbacks if callback.constructor is not None]
    names = {callback.constructor.target.name: callback for callback in callbacks}
    # `prefix = $call` and other aliases name the object too.
    close_over_aliases(state.func_ir, names, lambda value: value.name if isinstance(value, ir.Var) else None)
    constructors = {id(callback.constructor) for callback in callbacks}
    for statement in (statement for block in state.func_ir.blocks.values() for statement in block.body):
        if id(statement) in constructors or isinstance(statement, ir.Del):
            continue
        if isinstance(statement, ir.Assign) and statement.target.name in names:
            continue  # an alias
        for var in statement.list_vars():
            if var.name in names and (id(statement), var.name) not in prefix_arguments:
                callback = names[var.name]
                raise InvalidArgumentError(
                    f"prefix_op object {callback.name}(...) ({where(state, callback.constructor.loc)}) is used at "
                    f"line {statement.loc.line} other than as a coop scan's prefix_op; it exists only at compile time"
                )


class _SelfReplacer(ast.NodeTransformer):
    """`self.<state>` -> the state parameter, `self.<constant>` -> its value."""

    def __init__(self, self_name: str, callback: _ClassCallback, where_text: str):
        self.self_name, self.callback, self.where_text = self_name, callback, where_text
        self.constants = dict(callback.constants)

    def _refuse(self, node, what: str):
        raise InvalidArgumentError(
            f"{self.where_text}: argument 'prefix_op': {self.callback.name}.__call__ {what} (line "
            f"{node.lineno}); it may read self.<attribute> and change its state array's elements"
        )

    def visit_Attribute(self, node):
        if not (isinstance(node.value, ast.Name) and node.value.id == self.self_name):
            return self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            self._refuse(node, f"assigns self.{node.attr}")
        if node.attr == self.callback.state_attribute:
            return ast.copy_location(ast.Name(id=_STATE, ctx=ast.Load()), node)
        if node.attr in self.constants:
            return ast.copy_location(ast.Constant(self.constants[node.attr]), node)
        return self._refuse(node, f"reads self.{node.attr}, which __init__ does not set")

    def visit_Name(self, node):
        if node.id == self.self_name:
            self._refuse(node, f"uses {self.self_name} other than as {self.self_name}.<attribute>")
        return node


def _call_as_function(callback: _ClassCallback, where_text: str):
    """`__call__(self, block_aggregate)` rewritten as `f(state, block_aggregate)`."""
    method = callback.cls.__call__
    try:
        source = textwrap.dedent(inspect.getsource(method))
    except (OSError, TypeError):
        raise InvalidArgumentError(
            f"{where_text}: argument 'prefix_op': the source of {callback.name}.__call__ is not available; define "
            "the class in a file"
        ) from None
    tree = ast.parse(source)
    function = tree.body[0]
    self_name = function.args.args[0].arg
    function.decorator_list = []
    function.args.args[0] = ast.arg(arg=_STATE)
    _SelfReplacer(self_name, callback, where_text).visit(function)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, method.__code__.co_firstlineno - 1)  # errors point at the user's lines
    namespace = dict(method.__globals__)
    namespace.update(zip(method.__code__.co_freevars, (cell.cell_contents for cell in method.__closure__ or ())))
    # The user's own method, recompiled with self.<attribute> replaced.
    exec(compile(tree, inspect.getsourcefile(method) or "<prefix_op>", "exec"), namespace)  # noqa: S102
    return namespace[function.name]


def prefix_callback_symbol(callback: PrefixCallback, dtype: str) -> str:
    """The extern "C" symbol the callback is compiled to for a scan of `dtype`: what the
    facts name ("user:<symbol>") before anything is compiled."""
    identity = (*callback.identity, callback.state_dtype, callback.state_extent, dtype)
    return symbol_for("prefix", callback.name, dtype, identity)


def compile_prefix_callback(callback: PrefixCallback, dtype: str, arch: str, where_text: str, state):
    """The link item of the callback for a scan of `dtype` on `arch` ("sm_90"); compiled
    once per process, after planning, for the plans that link with it."""

    planner_state = state

    def build():
        from numba_cuda_mlir import carray, cuda, types

        from ._provider_call import numba_scalar, read_record, write_record

        symbol = prefix_callback_symbol(callback, dtype)
        function = with_device_helpers(callback.make_function())
        extent, value, state = (callback.state_extent,), numba_scalar(dtype), numba_scalar(callback.state_dtype)
        state_array = types.Array(state, 1, "C")
        check_result_kind(planner_state, function, (state_array, value), dtype, where_text, "prefix_op", callback.name)
        body = cuda.jit(device=True)(function)
        if is_record(dtype):  # the aggregate and the prefix are tuples, their fields at C++'s offsets

            def record_wrapper(result, state_pointer, block_aggregate):
                prefix = body(carray(state_pointer, extent), read_record(block_aggregate, dtype))
                write_record(result, prefix, dtype)

            wrapper, signature = record_wrapper, types.void(types.voidptr, types.CPointer(state), types.voidptr)
        elif passes_by_pointer(dtype):

            def wrapper(result, state_pointer, block_aggregate):
                result[0] = body(carray(state_pointer, extent), block_aggregate[0])

            signature = types.void(types.CPointer(value), types.CPointer(state), types.CPointer(value))
        else:

            def wrapper(state_pointer, block_aggregate):
                return body(carray(state_pointer, extent), block_aggregate)

            signature = value(types.CPointer(state), value)
        ltoir = compile_device_function(wrapper, signature, symbol, arch, where_text, "prefix_op", callback.name, dtype)
        return symbol, ltoir

    key = (callback.identity, callback.state_dtype, callback.state_extent)
    return compiled_once(("prefix_op", *key, dtype, arch), build)[1]
