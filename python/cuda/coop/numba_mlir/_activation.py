"""Activation: check the compiler's version, make the markers typeable for the
planner's partial type inference, and register the planner (last, so a failed
check leaves nothing behind). Idempotent."""

from __future__ import annotations

import threading

from ._compat import check_version

_lock = threading.Lock()
_active = False


def _typeable_markers() -> None:
    """Markers type as `none` so the planner can infer the types of everything around
    them before it rewrites them; none of them reaches real typing or lowering."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.extending import type_callable, typing_registry

    from ... import coop
    from .._core.markers import all_markers

    for name in [*all_markers(), "ThreadData", "TempStorage"]:
        marker = getattr(coop, name, None)
        if marker is None:
            continue

        @type_callable(marker, typing_registry=typing_registry)
        def _marker_type(context):
            def typer(*args, **kwargs):
                return types.none

            return typer


def activate() -> None:
    global _active
    with _lock:
        if _active:
            return
        check_version()
        from numba_cuda_mlir.extending import register_planner

        from ._planner import CoopWholeFunctionPlanner

        _typeable_markers()
        register_planner(CoopWholeFunctionPlanner)
        _active = True
