"""Activation: check the compiler's version, make the markers typeable for the
planner's partial type inference, install the disk cache's support (_dispatch), and
register the helper inliner and the planner (last, so a failed check leaves nothing
behind). Idempotent."""

from __future__ import annotations

import threading

from ._compat import check_version

_lock = threading.Lock()
_active = False


def _typeable_markers() -> None:
    """Markers type as `none` so the planner can infer the types of everything around
    them before it rewrites them; none of them reaches real typing or lowering.
    Registered as extending.type_callable would, but without its refresh of the
    compiler's typing context per marker: none at all while the context is not yet
    built (its first use reads the registry; building it here cost 0.7 s of every
    `import cuda.coop` after the compiler's), one otherwise."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.extending import refresh_registries, typing_registry
    from numba_cuda_mlir.numba_cuda.typing.templates import CallableTemplate

    from ... import coop
    from .._core.markers import all_markers
    from . import _dispatch

    def generic(self):
        def typer(*args, **kwargs):
            return types.none

        return typer

    for name in [*all_markers(), "ThreadData", "TempStorage"]:
        marker = getattr(coop, name, None)
        if marker is None:
            continue
        template = type(f"{name}_CallableTemplate", (CallableTemplate,), {"key": marker, "generic": generic})
        typing_registry.register(template)
        typing_registry.register_global(marker, types.Function(template))
    if _dispatch.typing_context_built():
        refresh_registries(typing=True, target=False, include_uninitialized_cuda=False)


def activate() -> None:
    global _active
    with _lock:
        if _active:
            return
        check_version()
        from numba_cuda_mlir.extending import register_planner

        from . import _dispatch, _shared_pointers, _translation
        from ._inline import CoopHelperInliner
        from ._planner import CoopWholeFunctionPlanner

        _typeable_markers()
        _dispatch.install()
        _shared_pointers.install()
        _translation.install()
        # The inliner first: a helper that takes a group must be in the kernel before the planner runs.
        register_planner(CoopHelperInliner)
        register_planner(CoopWholeFunctionPlanner)
        _active = True
