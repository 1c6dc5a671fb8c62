"""Python functions the providers call (operators, prefix callbacks): compiled by
numba-cuda-mlir to LTO-IR with the C ABI under a stable symbol, once per process
and key, and linked with the bundle."""

from __future__ import annotations

import hashlib
import re
import threading

from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR

from .. import _engine
from .._core.errors import UnsupportedOperationError

_compiled: dict = {}  # key -> (symbol, LTOIR)
_lock = threading.Lock()


def passes_by_pointer(dtype: str) -> bool:
    """Whether values of `dtype` cross the C ABI by pointer, as the engine declares
    them (the compiler's half and complex values and C++'s structs for them are not
    passed alike)."""
    return _engine.passes_by_pointer(dtype)


def symbol_for(kind: str, name: str, dtype: str, identity: tuple) -> str:
    """`coop_<kind>_<name>_<dtype>_<digest of identity>`: stable across processes (the
    provider cache keys on it), distinct per identity."""
    digest = hashlib.sha256(repr(identity).encode()).hexdigest()[:12]
    return f"coop_{kind}_{re.sub(r'[^0-9A-Za-z_]', '_', name)}_{dtype}_{digest}"


def compiled_once(key, build):
    """(symbol, link item) for `key`; `build()` -> (symbol, LTO-IR bytes) runs on the
    first request in the process only."""
    with _lock:
        if key not in _compiled:
            symbol, ltoir = build()
            _compiled[key] = (symbol, LTOIR(ltoir, name=f"{symbol}.ltoir"))
        return _compiled[key]


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
