"""The process-wide engine, created on first use."""

import threading

from . import _engine, _toolkit_locate

_lock = threading.Lock()
_engine_instance = None
_located: dict[str, _toolkit_locate.Found] = {}


def located() -> dict[str, _toolkit_locate.Found]:
    """What cuda-pathfinder found for the engine of this process (see _toolkit_locate)."""
    engine()
    return dict(_located)


def engine() -> _engine.Engine:
    """The engine of this process. It reads the environment (CUDA_COOP_ENABLE_CACHE, XDG_CACHE_HOME,
    CUDA_COOP_SOURCE_DUMP_DIR, ...) when first called; its caches serve every kernel after that.
    The toolkit pieces come from cuda-pathfinder (_toolkit_locate), in the order documented there,
    or from the disk cache's note of what it found for the same search inputs."""
    global _engine_instance
    if _engine_instance is None:
        with _lock:
            if _engine_instance is None:
                found, note = _toolkit_locate.locate_or_recall(_engine.load_note)
                paths = {field: piece.path for field, piece in found.items()}
                _toolkit_locate.warn_about_toolkit_roots(paths)
                _located.update(found)
                created = _engine.Engine("numba_mlir", _toolkit_locate.wheel_roots(), paths)
                if note is not None:
                    created.keep_note(*note)
                _engine_instance = created
    return _engine_instance
