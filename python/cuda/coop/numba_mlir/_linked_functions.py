"""Python functions the providers call (operators, prefix callbacks): compiled by
numba-cuda-mlir to LTO-IR with the C ABI under a stable symbol, once per process
and key, and linked with the bundle."""

from __future__ import annotations

import hashlib
import inspect
import re
import threading

from numba_cuda_mlir.numba_cuda.core import ir
from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR

from .. import _engine
from .._core.errors import CoopError, InvalidArgumentError, UnsupportedOperationError
from ._ir import definition

_compiled: dict = {}  # key -> (symbol, LTOIR)
_lock = threading.Lock()
_compiling = threading.local()  # .user_function: (where_text, argument, name) while one compiles


def user_function_being_compiled():
    """(where_text, argument, name) of the operator or prefix_op this thread is
    compiling, or None: the planner sees such a compile as a device function's."""
    return getattr(_compiling, "user_function", None)


def passes_by_pointer(dtype: str) -> bool:
    """Whether values of `dtype` cross the C ABI by pointer, as the engine declares
    them (the compiler's half and complex values and C++'s structs for them are not
    passed alike)."""
    return _engine.passes_by_pointer(dtype)


def symbol_for(kind: str, name: str, dtype: str, identity: tuple) -> str:
    """`coop_<kind>_<name>_<dtype>_<digest of identity>`: stable across processes (the
    provider cache keys on it), distinct per identity. The name keeps no run of
    underscores (`<lambda>`, `__call__`): C++ reserves any name holding "__", and the
    engine refuses such a symbol."""
    digest = hashlib.sha256(repr(identity).encode()).hexdigest()[:12]

    def spelled(text):
        return re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]", "_", text)).strip("_") or "fn"

    return f"coop_{kind}_{spelled(name)}_{spelled(dtype)}_{digest}"  # a record's "record(...)" too


def compiled_once(key, build):
    """(symbol, link item) for `key`; `build()` -> (symbol, LTO-IR bytes) runs on the
    first request in the process only."""
    with _lock:
        if key not in _compiled:
            symbol, ltoir = build()
            _compiled[key] = (symbol, LTOIR(ltoir, name=f"{symbol}.ltoir"))
        return _compiled[key]


def with_device_helpers(function, _made=None):
    """`function` with the plain Python functions it calls, whether globals or closure
    variables (a helper defined beside an operator in a test or a notebook), made
    device functions, as the kernel compiler needs them; other values are kept."""
    import types as pytypes

    from numba_cuda_mlir import cuda

    made = {function: function} if _made is None else _made  # function -> its device function

    def device(value):
        if value not in made:
            made[value] = value  # until made: a helper that calls back into it sees the plain function
            made[value] = cuda.jit(device=True)(with_device_helpers(value, made))
        return made[value]

    code = function.__code__
    names = {name: function.__globals__[name] for name in code.co_names if name in function.__globals__}
    helpers = {name: device(value) for name, value in names.items() if inspect.isfunction(value)}
    cells = function.__closure__ or ()
    closure = tuple(pytypes.CellType(device(cell.cell_contents)) if _holds_function(cell) else cell for cell in cells)
    if not helpers and closure == cells:
        return function
    namespace = dict(function.__globals__, **helpers)
    rebuilt = pytypes.FunctionType(code, namespace, function.__name__, function.__defaults__, closure or None)
    rebuilt.__qualname__, rebuilt.__module__ = function.__qualname__, function.__module__
    return rebuilt


def _holds_function(cell) -> bool:
    try:
        return inspect.isfunction(cell.cell_contents)
    except ValueError:  # an empty cell
        return False


def compile_device_function(function, signature, symbol, arch, where_text, argument, name, dtype) -> bytes:
    """LTO-IR of `function` with the C ABI under `symbol`; a function the kernel
    compiler cannot compile is an error naming the call and the argument."""
    from numba_cuda_mlir.compiler import compile as compile_to_ltoir
    from numba_cuda_mlir.numba_cuda.core import errors as numba_errors

    _compiling.user_function = (where_text, argument, name)
    try:
        ltoir, _ = compile_to_ltoir(
            function,
            signature,
            device=True,
            abi="c",
            abi_info={"abi_name": symbol},
            output="ltoir",
            cc=(int(arch[3:-1]), int(arch[-1])),
            forceinline=True,  # so LTO folds it into CUB's loops
        )
    except numba_errors.TypingError as error:
        raise UnsupportedOperationError(
            f"{where_text}: argument '{argument}' = {name} cannot be compiled for {dtype} values: {_summary(error)}"
        ) from None
    except CoopError:
        raise
    except Exception as error:  # the kernel compiler failing to lower what it typed (`!=` on complex values)
        raise UnsupportedOperationError(
            f"{where_text}: argument '{argument}' = {name} cannot be compiled for {dtype} values: the kernel "
            f"compiler failed to lower it ({type(error).__name__}: {_summary(error) or 'no message'}); rewrite the "
            "operation it fails on, e.g. compare a complex value's .real and .imag parts"
        ) from error
    finally:
        _compiling.user_function = None
    return ltoir


def check_returns_a_value(function, where_text: str, argument: str, expected: str) -> None:
    """A function without a `return` of a value gives None, which the C ABI reads as 0 or
    false, and one that only raises returns whatever a register held (a raise in a device
    function cannot stop the kernel): both compile, so both are refused before they do."""
    from numba_cuda_mlir.numba_cuda.compiler import run_frontend

    try:
        func_ir = run_frontend(function)
    except Exception:  # noqa: BLE001 (its compile reports why, naming the call)
        return
    returns = [
        statement for block in func_ir.blocks.values() for statement in block.body if isinstance(statement, ir.Return)
    ]
    if not returns:
        what = "only raises: no path through it returns"
    elif all(_returns_none(func_ir, statement.value) for statement in returns):
        what = "returns nothing: it has no `return` of a value"
    else:
        return
    raise InvalidArgumentError(
        f"{where_text}: argument '{argument}' = {function.__qualname__} {what}; expected {expected}"
    )


def _returns_none(func_ir, var) -> bool:
    """Whether `var`, a return's value, is the constant None (a body's implicit `return`)."""
    found = definition(func_ir, var)
    while isinstance(found, ir.Expr) and found.op == "cast":
        found = definition(func_ir, found.value)
    return isinstance(found, ir.Const) and found.value is None


def check_result_kind(state, function, argtypes, dtype: str, where_text: str, argument: str, name: str) -> None:
    """A user function's result is converted to the payload's dtype only within its kind
    (int64 to int32, float64 to float32, as C++ would); a float or bool result for an
    integer payload, or a complex one for a real payload, would be truncated without a word."""
    from numba_cuda_mlir import types

    result = _inferred_result(state, function, argtypes)
    if result is None:
        return  # a cooperative call inside it types as none for now; its compile says what is wrong
    payload = argtypes[-1]
    if isinstance(payload, types.BaseTuple):
        return _check_record_result(result, payload, dtype, where_text, argument, name)
    if not _of_kind(result, payload):
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' = {name} returns {result} for {dtype} values; expected a result of "
            f"the payload's kind ({'an integer' if isinstance(payload, types.Integer) else 'a number'}), as "
            f"{dtype} holds it: convert explicitly where a conversion is meant"
        )


def _of_kind(result, payload) -> bool:
    """Whether a value of type `result` converts to `payload` within its kind."""
    from numba_cuda_mlir import types

    if isinstance(payload, types.Boolean):
        return isinstance(result, (types.Boolean, types.Number))
    if isinstance(payload, types.Integer):
        return isinstance(result, types.Integer)
    if isinstance(payload, types.Float):
        return isinstance(result, (types.Integer, types.Float))
    return isinstance(result, types.Number)


def _check_record_result(result, payload, dtype: str, where_text: str, argument: str, name: str) -> None:
    """A function combining records returns a tuple of as many values, each of its field's kind."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.numba_cuda.types.misc import unliteral

    fields = ", ".join(str(field) for field in payload.types)
    expected = f"a tuple of {len(payload.types)} values ({fields}), one per field of {dtype}"
    if not isinstance(result, types.BaseTuple):
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' = {name} returns {result} for {dtype} values; expected {expected}"
        )
    if len(result.types) != len(payload.types):
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' = {name} returns a tuple of {len(result.types)} values for "
            f"{dtype} values; expected {expected}"
        )
    for position, (got, field) in enumerate(zip(result.types, payload.types)):
        if not _of_kind(unliteral(got), field):
            raise InvalidArgumentError(
                f"{where_text}: argument '{argument}' = {name} returns {got} as field {position} of {dtype} "
                f"({field}); expected a value of the field's kind: convert explicitly where a conversion is meant"
            )


def check_predicate_result(state, function, argtypes, dtype: str, where_text: str, argument: str, name: str) -> None:
    """A predicate returns a truth value: a bool (or an integer, nonzero meaning true); a float or
    a tuple would be read as true or false without a word."""
    from numba_cuda_mlir import types

    result = _inferred_result(state, function, argtypes)
    if result is None or isinstance(result, (types.Boolean, types.Integer)):
        return
    raise InvalidArgumentError(
        f"{where_text}: argument '{argument}' = {name} returns {result} for {dtype} values; expected a bool "
        "(a comparison such as a < b)"
    )


def _inferred_result(state, function, argtypes):
    """The type `function` returns for `argtypes`, or None where typing it here fails (its compile
    then reports why, naming the call) or it returns nothing yet known."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.numba_cuda.compiler import run_frontend
    from numba_cuda_mlir.numba_cuda.core.typed_passes import type_inference_stage

    try:
        typed = type_inference_stage(state.typingctx, state.targetctx, run_frontend(function), argtypes, None, {})
    except Exception:  # noqa: BLE001 (its compile reports why, naming the call)
        return None
    return None if typed.return_type == types.none else typed.return_type


def _summary(error) -> str:
    """The kernel compiler's message without its candidate lists: what failed and where."""
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).splitlines() if line.strip()]
    body = lines[1:] if lines and lines[0].startswith("Failed in") else lines
    kept = body[:1] + [line for line in body if line.startswith((">>>", 'File "'))]
    return " ".join(dict.fromkeys(kept))
