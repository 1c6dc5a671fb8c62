"""How an uncaught cuda.coop error reaches a person: its message first and once (the
user's file and line, then the call), then the user's own frames. The frames inside
the kernel compiler and cuda.coop, some twenty of them, are hidden unless
CUDA_COOP_LOG asks for them (CUDA_COOP_LOG=traceback, or all)."""

from __future__ import annotations

import os
import sys
import traceback

from .errors import CoopError


def _internal_roots() -> tuple:
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep]  # .../cuda/coop/
    compiler = sys.modules.get("numba_cuda_mlir")
    if compiler is not None and getattr(compiler, "__file__", None):
        roots.append(os.path.dirname(os.path.abspath(compiler.__file__)) + os.sep)
    return tuple(roots)


def full_tracebacks_requested() -> bool:
    from .. import _engine  # the one parser of CUDA_COOP_LOG

    return "traceback" in _engine.log_stages()


def format_error(error: CoopError) -> str:
    """The message, then the frames outside cuda.coop and the kernel compiler."""
    roots = _internal_roots()
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not os.path.abspath(frame.filename).startswith(roots) and not frame.filename.startswith("<frozen")
    ]
    text = f"{type(error).__module__}.{type(error).__name__}: {error}\n"
    if frames:
        text += "Traceback (most recent call last; internal frames hidden, CUDA_COOP_LOG=traceback shows them):\n"
        text += "".join(traceback.format_list(frames))
    return text


def install() -> None:
    """Chains an excepthook that shows uncaught cuda.coop errors as format_error does. Idempotent."""
    previous = sys.excepthook
    if getattr(previous, "__coop_hook__", False):
        return

    def hook(exc_type, error, tb):
        if isinstance(error, CoopError) and not full_tracebacks_requested():
            sys.stderr.write(format_error(error))
        else:
            previous(exc_type, error, tb)

    hook.__coop_hook__ = True
    sys.excepthook = hook
