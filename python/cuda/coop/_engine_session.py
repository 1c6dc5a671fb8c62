"""The process-wide engine, created on first use."""

import os
import sys
import threading

from . import _engine

_lock = threading.Lock()
_engine_instance = None


def wheel_roots() -> list[str]:
    """Every site-packages/nvidia directory on sys.path, where pip's nvidia-* wheels put NVRTC,
    nvJitLink and the CUDA and CCCL headers, so a machine without a CUDA toolkit can compile."""
    roots = []
    for entry in sys.path:
        root = os.path.join(entry, "nvidia")
        if entry and os.path.isdir(root) and root not in roots:
            roots.append(root)
    return roots


def engine() -> _engine.Engine:
    """The engine of this process. It reads the environment (CUDA_COOP_ENABLE_CACHE, XDG_CACHE_HOME,
    CUDA_COOP_SOURCE_DUMP_DIR, ...) when first called; its caches serve every kernel after that."""
    global _engine_instance
    if _engine_instance is None:
        with _lock:
            if _engine_instance is None:
                _engine_instance = _engine.Engine("numba_mlir", wheel_roots())
    return _engine_instance
