"""Operators written in Python: each (function, dtype, arch) is compiled once per
process by numba-cuda-mlir to LTO-IR with the C ABI the engine's functor calls
(`T symbol(T a, T b)`), and linked with the bundle."""

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


def compile_operator(function, dtype: str, arch: str, where_text: str):
    """(symbol, link item) of `function` as a binary operator on `dtype`, for `arch` ("sm_90")."""
    parameters = inspect.signature(function).parameters
    if len(parameters) != 2:
        raise InvalidArgumentError(
            f"{where_text}: argument 'op' = {function.__qualname__} takes {len(parameters)} arguments; expected a "
            "binary operator op(a, b)"
        )
    if dtype in ("float16", "bfloat16"):
        raise UnsupportedOperationError(
            f"{where_text}: argument 'op' is a Python function on {dtype}; Python operators take 8- to 64-bit "
            "integers, float32 or float64 for now"
        )
    with _lock:
        key = (function, dtype, arch)
        if key not in _compiled:
            from numba_cuda_mlir.compiler import compile as compile_device_function

            symbol = _symbol(function, dtype)
            scalar = numba_scalar(dtype)
            ltoir, _ = compile_device_function(
                function,
                scalar(scalar, scalar),
                device=True,
                abi="c",
                abi_info={"abi_name": symbol},
                output="ltoir",
                cc=(int(arch[3:-1]), int(arch[-1])),
                forceinline=True,  # so LTO folds the operator into CUB's loops
            )
            _compiled[key] = (symbol, LTOIR(ltoir, name=f"{symbol}.ltoir"))
        return _compiled[key]
