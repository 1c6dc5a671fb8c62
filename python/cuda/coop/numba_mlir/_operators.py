"""Operators written in Python: each (function, dtype, arch) is compiled once per
process by numba-cuda-mlir to LTO-IR with the C ABI the engine's functor calls
(`T symbol(T a, T b)`; `void symbol(T* result, T* a, T* b)` for 16-bit floats
and complex values),
and linked with the bundle."""

from __future__ import annotations

import hashlib
import inspect
import re
import threading

from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR

from .._core.errors import InvalidArgumentError, UnsupportedOperationError
from ._provider_call import numba_scalar

_compiled: dict = {}  # (function, dtype, arch) -> (symbol, LTOIR)
_lock = threading.Lock()


def passes_by_pointer(dtype: str) -> bool:
    """The engine's ExternalFunction::by_pointer: the compiler's half and complex
    values and C++'s structs for them are not passed alike, so they cross by pointer."""
    return dtype in ("float16", "bfloat16", "complex64", "complex128")


def python_function(value):
    """The Python function behind an operator value (a function or a device dispatcher), or None."""
    function = getattr(value, "py_func", value)
    return function if inspect.isfunction(function) else None


def _symbol(function, dtype: str) -> str:
    """Stable across processes (the provider cache keys on it), distinct per function."""
    code = function.__code__
    identity = hashlib.sha256(
        repr((function.__module__, function.__qualname__, code.co_code, code.co_consts, dtype)).encode()
    ).hexdigest()[:12]
    return f"coop_op_{re.sub(r'[^0-9A-Za-z_]', '_', function.__qualname__)}_{dtype}_{identity}"


def compile_device_function(function, signature, symbol, arch, where_text, argument, name, dtype) -> bytes:
    """LTO-IR of `function` with the C ABI under `symbol`; a function the kernel
    compiler cannot compile is an error naming the call and the argument."""
    from numba_cuda_mlir.compiler import compile as compile_to_ltoir
    from numba_cuda_mlir.numba_cuda.core import errors as numba_errors

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
    return ltoir


def _summary(error) -> str:
    """The kernel compiler's message without its candidate lists: what failed and where."""
    lines = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*m", "", str(error)).splitlines() if line.strip()]
    body = lines[1:] if lines and lines[0].startswith("Failed in") else lines
    kept = body[:1] + [line for line in body if line.startswith((">>>", 'File "'))]
    return " ".join(dict.fromkeys(kept))


def compile_operator(function, dtype: str, arch: str, where_text: str):
    """(symbol, link item) of `function` as a binary operator on `dtype`, for `arch` ("sm_90")."""
    parameters = inspect.signature(function).parameters
    if len(parameters) != 2:
        raise InvalidArgumentError(
            f"{where_text}: argument 'op' = {function.__qualname__} takes {len(parameters)} arguments; expected a "
            "binary operator op(a, b)"
        )
    with _lock:
        key = (function, dtype, arch)
        if key not in _compiled:
            from numba_cuda_mlir import cuda, types

            symbol = _symbol(function, dtype)
            scalar = numba_scalar(dtype)
            if passes_by_pointer(dtype):
                operator = cuda.jit(device=True)(function)

                def wrapper(result, a, b):
                    result[0] = operator(a[0], b[0])

                pointer = types.CPointer(scalar)
                compiled, signature = wrapper, types.void(pointer, pointer, pointer)
            else:
                compiled, signature = function, scalar(scalar, scalar)
            ltoir = compile_device_function(
                compiled, signature, symbol, arch, where_text, "op", function.__qualname__, dtype
            )
            _compiled[key] = (symbol, LTOIR(ltoir, name=f"{symbol}.ltoir"))
        return _compiled[key]
