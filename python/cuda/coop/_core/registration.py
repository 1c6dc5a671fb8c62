"""Which kernel compilers cuda.coop plugs into, and when it does.

Importing cuda.coop loads no compiler. A backend activates when `register()` names
it, or automatically at import when its compiler was already imported (unless
CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION=1)."""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
import warnings

from .errors import IncompatibleCompilerError, InvalidArgumentError


@dataclasses.dataclass(frozen=True)
class Backend:
    runtime_module: str  # the compiler's module; its presence in sys.modules triggers auto-registration
    integration: str  # our module that checks the version and installs the hooks


BACKENDS = {"numba-cuda-mlir": Backend("numba_cuda_mlir", "cuda.coop.numba_mlir")}


def register(name: str, /) -> None:
    """Activate the backend `name` (import its compiler, check its version, install
    the planner). Safe to repeat."""
    backend = BACKENDS.get(name)
    if backend is None:
        raise InvalidArgumentError(
            f"coop.register: argument 'name' = {name!r} is not allowed; expected one of: {', '.join(BACKENDS)}"
        )
    importlib.import_module(backend.integration).activate()


def auto_register() -> None:
    if os.environ.get("CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION", "0") == "1":
        return
    for name, backend in BACKENDS.items():
        if backend.runtime_module not in sys.modules:
            continue
        try:
            register(name)
        except IncompatibleCompilerError as error:
            warnings.warn(f"cuda.coop did not register with {name}: {error}", stacklevel=3)


def explain(kernel, /, *args, grid, block):
    """The plans and generated C++ for launching `kernel` with `args` on `grid` x
    `block`, without running it."""
    for backend in BACKENDS.values():
        module = sys.modules.get(backend.integration)
        if module is not None and module.owns(kernel):
            return module.explain(kernel, *args, grid=grid, block=block)
    raise InvalidArgumentError(
        f"coop.explain: argument 'kernel' = {kernel!r} is not allowed; expected a kernel of an active backend "
        f"({', '.join(BACKENDS)}; activate one with coop.register)"
    )
