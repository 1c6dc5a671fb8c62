"""Operators written in Python: each (function, dtype, arch) is compiled once per
process (_linked_functions) with the C ABI the engine's functor calls
(`T symbol(T a, T b)`; `void symbol(T* result, T* a, T* b)` for 16-bit floats
and complex values), and linked with the bundle."""

from __future__ import annotations

import inspect

from .._core.errors import InvalidArgumentError
from ._linked_functions import (
    check_result_kind,
    compile_device_function,
    compiled_once,
    passes_by_pointer,
    symbol_for,
    with_device_helpers,
)
from ._provider_call import numba_scalar


def python_function(value):
    """The Python function behind an operator value (a function or a device dispatcher), or None."""
    function = getattr(value, "py_func", value)
    return function if inspect.isfunction(function) else None


def check_binary(function, where_text: str, argument: str) -> None:
    parameters = inspect.signature(function).parameters
    if len(parameters) != 2:
        raise InvalidArgumentError(
            f"{where_text}: argument '{argument}' = {function.__qualname__} takes {len(parameters)} arguments; "
            "expected a binary operator op(a, b)"
        )


def operator_symbol(function, dtype: str) -> str:
    """The extern "C" symbol `function` is compiled to as an operator on `dtype`: what the
    facts name ("user:<symbol>") before anything is compiled."""
    code = function.__code__
    identity = (function.__module__, function.__qualname__, code.co_code, code.co_consts, dtype)
    return symbol_for("op", function.__qualname__, dtype, identity)


def compile_operator(function, dtype: str, arch: str, where_text: str, state, argument: str):
    """The link item of `function`, the call's `argument` (binary_op, scan_op), as a binary
    operator on `dtype`, for `arch` ("sm_90"); compiled once per process, after planning,
    for the plans that link with it."""

    def build():
        from numba_cuda_mlir import cuda, types

        symbol = operator_symbol(function, dtype)
        scalar = numba_scalar(dtype)
        ready = with_device_helpers(function)
        check_result_kind(state, ready, (scalar, scalar), dtype, where_text, argument, function.__qualname__)
        if passes_by_pointer(dtype):
            operator = cuda.jit(device=True)(ready)

            def wrapper(result, a, b):
                result[0] = operator(a[0], b[0])

            pointer = types.CPointer(scalar)
            compiled, signature = wrapper, types.void(pointer, pointer, pointer)
        else:
            compiled, signature = ready, scalar(scalar, scalar)
        name = function.__qualname__
        return symbol, compile_device_function(compiled, signature, symbol, arch, where_text, argument, name, dtype)

    return compiled_once(("op", function, dtype, arch), build)[1]
