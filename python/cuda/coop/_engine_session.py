"""The process-wide engine, created on first use."""

import os
import sys
import threading

from . import _engine, _toolkit_locate

_lock = threading.Lock()
_engine_instance = None
_located: dict[str, _toolkit_locate.Found] = {}


def wheel_roots() -> list[str]:
    """Every site-packages/nvidia directory on sys.path, where pip's nvidia-* wheels put NVRTC,
    nvJitLink and the CUDA and CCCL headers, so a machine without a CUDA toolkit can compile."""
    roots = []
    for entry in sys.path:
        root = os.path.join(entry, "nvidia")
        if entry and os.path.isdir(root) and root not in roots:
            roots.append(root)
    return roots


def located() -> dict[str, _toolkit_locate.Found]:
    """What cuda-pathfinder found for the engine of this process (see _toolkit_locate)."""
    engine()
    return dict(_located)


def engine() -> _engine.Engine:
    """The engine of this process. It reads the environment (CUDA_COOP_ENABLE_CACHE, XDG_CACHE_HOME,
    CUDA_COOP_SOURCE_DUMP_DIR, ...) when first called; its caches serve every kernel after that.
    The toolkit pieces come from cuda-pathfinder (_toolkit_locate), in the order documented there."""
    global _engine_instance
    if _engine_instance is None:
        with _lock:
            if _engine_instance is None:
                found = _toolkit_locate.locate()
                paths = {field: piece.path for field, piece in found.items()}
                _toolkit_locate.warn_about_toolkit_roots(paths)
                _located.update(found)
                _engine_instance = _engine.Engine("numba_mlir", wheel_roots(), paths)
    return _engine_instance
