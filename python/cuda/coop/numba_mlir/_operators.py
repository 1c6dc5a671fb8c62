"""Operators and predicates written in Python: each (function, dtype, arch) is compiled
once per process (_linked_functions) with the C ABI the engine's functor calls (an
operator `T symbol(T a, T b)`, a predicate `int32 symbol(T a, T b)`, nonzero meaning
true; for 16-bit floats, complex values and records `void symbol(R* result, T* a, T* b)`,
a record's fields at the offsets C++ lays them out at), and linked with the bundle."""

from __future__ import annotations

import inspect

from .._core.errors import InvalidArgumentError
from ._linked_functions import (
    check_predicate_result,
    check_result_kind,
    check_returns_a_value,
    compile_device_function,
    compiled_once,
    passes_by_pointer,
    symbol_for,
    with_device_helpers,
)
from ._provider_call import numba_scalar, read_record, write_record
from ._records import is_record


def python_function(value):
    """The Python function behind an operator value (a function or a device dispatcher), or None."""
    function = getattr(value, "py_func", value)
    return function if inspect.isfunction(function) else None


def check_binary(function, where_text: str, argument: str, kind: str = "operator") -> None:
    parameters = inspect.signature(function).parameters
    if len(parameters) != 2:
        expected = "a binary operator op(a, b)" if kind == "operator" else "a predicate less(a, b) returning a bool"
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' = {function.__qualname__} takes {len(parameters)} arguments; "
            f"expected {expected}"
        )
    returned = "the combined value" if kind == "operator" else "a bool (a comparison such as a < b)"
    check_returns_a_value(function, where_text, argument, f"a function that returns {returned}")


def operator_symbol(function, dtype: str, kind: str = "operator") -> str:
    """The extern "C" symbol `function` is compiled to as an operator (or predicate) on
    `dtype`: what the facts name ("user:<symbol>") before anything is compiled."""
    code = function.__code__
    identity = (function.__module__, function.__qualname__, code.co_code, code.co_consts, dtype, kind)
    return symbol_for("op" if kind == "operator" else "predicate", function.__qualname__, dtype, identity)


def compile_operator(function, dtype: str, arch: str, where_text: str, state, argument: str, kind: str = "operator"):
    """The link item of `function`, the call's `argument` (binary_op, scan_op; a predicate's
    compare_op), as a binary operator (or predicate) on `dtype`, for `arch` ("sm_90");
    compiled once per process, after planning, for the plans that link with it."""

    def build():
        from numba_cuda_mlir import cuda, types

        symbol = operator_symbol(function, dtype, kind)
        scalar = numba_scalar(dtype)
        ready = with_device_helpers(function)
        name = function.__qualname__
        predicate = kind == "predicate"
        if predicate:
            check_predicate_result(state, ready, (scalar, scalar), dtype, where_text, argument, name)
        else:
            check_result_kind(state, ready, (scalar, scalar), dtype, where_text, argument, name)
        core, result_type = ready, scalar
        if predicate:  # its truth as an int32: a bool and the engine's C int need not cross alike
            judge = cuda.jit(device=True)(ready)

            def truth(a, b):
                return 1 if judge(a, b) else 0

            core, result_type = truth, types.int32
        if is_record(dtype) and predicate:  # records read by pointer, the truth written through the first
            operator = cuda.jit(device=True)(core)

            def record_predicate(result, a, b):
                result[0] = operator(read_record(a, dtype), read_record(b, dtype))

            compiled, signature = (
                record_predicate,
                types.void(types.CPointer(types.int32), types.voidptr, types.voidptr),
            )
        elif is_record(dtype):  # fields at the offsets C++ lays them out at, read and written by pointer
            operator = cuda.jit(device=True)(core)

            def record_wrapper(result, a, b):
                write_record(result, operator(read_record(a, dtype), read_record(b, dtype)), dtype)

            compiled, signature = record_wrapper, types.void(types.voidptr, types.voidptr, types.voidptr)
        elif passes_by_pointer(dtype):
            operator = cuda.jit(device=True)(core)

            def wrapper(result, a, b):
                result[0] = operator(a[0], b[0])

            pointer = types.CPointer(scalar)
            compiled, signature = wrapper, types.void(types.CPointer(result_type), pointer, pointer)
        else:
            compiled, signature = core, result_type(scalar, scalar)
        return symbol, compile_device_function(compiled, signature, symbol, arch, where_text, argument, name, dtype)

    return compiled_once((kind, function, dtype, arch), build)[1]
