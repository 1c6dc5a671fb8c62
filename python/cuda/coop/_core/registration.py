"""Which kernel compilers cuda.coop plugs into, and when it does.

Importing cuda.coop loads no compiler. A backend activates when `register()` names
it, or automatically at import when its compiler was already imported (unless
CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION=1)."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.abc
import os
import sys
import warnings
from typing import ClassVar

from .errors import CoopWarning, IncompatibleCompilerError, InvalidArgumentError

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def environment_flag(name: str) -> bool:
    """A boolean environment variable: 1/true/yes/on or 0/false/no/off/empty, in any
    case; anything else warns once and reads as false."""
    value = os.environ.get(name, "").strip().lower()
    if value not in _TRUE and value not in _FALSE:
        warnings.warn(
            f"{name}={os.environ[name]!r} is not a boolean; expected 1, true, yes, on, 0, false, no or off "
            "(read as false)",
            CoopWarning,
            stacklevel=3,
        )
    return value in _TRUE


@dataclasses.dataclass(frozen=True)
class Backend:
    runtime_module: str  # the compiler's module; its presence in sys.modules triggers auto-registration
    integration: str  # our module that checks the version and installs the hooks
    install: str  # how a user gets the compiler


INSTALL_NUMBA_CUDA_MLIR = (
    'pip install "cuda-coop[cu13]" (the compiler with the CUDA 13 wheels), or '
    'pip install "cuda-coop[numba-cuda-mlir]" with a CUDA toolkit of your own'
)
BACKENDS = {"numba-cuda-mlir": Backend("numba_cuda_mlir", "cuda.coop.numba_mlir", INSTALL_NUMBA_CUDA_MLIR)}


def register(name: str, /) -> None:
    """Activate the backend `name`: import its kernel compiler, check its version
    and install cuda.coop's planner in it. Safe to repeat.

    Importing `cuda.coop` after ``numba_cuda_mlir`` (or importing ``numba_cuda_mlir``
    later) does this by itself unless ``CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION=1``.

    Args:
        name: ``"numba-cuda-mlir"``.

    Raises:
        InvalidArgumentError: for another name.
        IncompatibleCompilerError: the compiler is missing (the message names the
            pip command that installs it) or of an unsupported version.

    Example:
        ::

            coop.register("numba-cuda-mlir")
    """
    backend = BACKENDS.get(name)
    if backend is None:
        raise InvalidArgumentError(
            f"coop.register: argument 'name' = {name!r} is not allowed; expected one of: {', '.join(BACKENDS)}"
        )
    _import_compiler(name, backend)
    importlib.import_module(backend.integration).activate()


def _import_compiler(name: str, backend: Backend) -> None:
    """The compiler first, so that a missing one (or one missing a piece of its own) is named
    with the command that installs it rather than surfacing from inside our integration."""
    try:
        importlib.import_module(backend.runtime_module)
    except ImportError as missing:
        raise IncompatibleCompilerError(
            f"coop.register({name!r}): the compiler cannot be imported ({type(missing).__name__}: {missing}); "
            f"install it with {backend.install}"
        ) from missing


def auto_register() -> None:
    """Activates every backend whose compiler is imported, now or later: importing
    cuda.coop before the compiler (the order isort gives) works as well as after."""
    if environment_flag("CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"):
        return
    for name, backend in BACKENDS.items():
        if backend.runtime_module in sys.modules:
            _register_or_warn(name)
        else:
            _AfterImport.install(backend.runtime_module, name)


def _register_or_warn(name: str) -> None:
    try:
        register(name)
    except IncompatibleCompilerError as error:
        warnings.warn(f"cuda.coop did not register with {name}: {error}", CoopWarning, stacklevel=4)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Registers a backend right after its compiler's module finishes importing."""

    _pending: ClassVar[dict] = {}  # module name -> backend name

    @classmethod
    def install(cls, module: str, backend: str) -> None:
        cls._pending[module] = backend
        if not any(isinstance(finder, cls) for finder in sys.meta_path):
            sys.meta_path.insert(0, cls())

    def find_spec(self, fullname, path, target=None):
        if fullname not in self._pending:
            return None
        backend = self._pending.pop(fullname)
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                run = spec.loader.exec_module

                def exec_module(module, run=run):
                    run(module)
                    _register_or_warn(backend)

                spec.loader.exec_module = exec_module  # this spec's own loader instance
                return spec
        return None


def explain(kernel, /, *args, grid=None, block=None, cluster=None):
    """What cuda.coop makes of `kernel` launched with `args` on `grid` x `block`,
    without running it.

    The kernel is compiled as that launch would compile it (for the current
    GPU's architecture, or ``sm_90`` where no GPU answers), its providers are
    compiled by NVRTC (or taken from the caches) and it is linked by nvJitLink;
    nothing runs on a device, so this works on a machine without a GPU.

    Args:
        kernel: a ``@cuda.jit`` kernel of numba-cuda-mlir, or a configured one
            (``kernel[grid, block]``), whose launch is then the default.
        *args: its arguments, as for a launch (NumPy arrays stand for device arrays).
        grid: the grid, an int or a tuple of 1 to 3 ints (default: the configured
            kernel's, else 1).
        block: the block, an int or a tuple of 1 to 3 ints (default: the configured
            kernel's, else the block the kernel declares with ``coop.this_block(128)``).
        cluster: the blocks of one cluster, an int or a tuple of 1 to 3 ints
            (default: none, each block its own cluster).

    Returns:
        An explanation whose ``str()`` is a readable report and whose
        attributes are: ``kernel`` (its name), ``launch`` (grid and block),
        ``arch`` (``"sm_90"``), ``resources`` (of the linked kernel: ``registers``
        and ``local_bytes`` per thread, ``shared_bytes`` of static shared memory
        per block), ``plans`` (one per cooperative call, in source
        order: the operation, group, payload, CUB class and method, template
        arguments, each option as OMITTED / STATIC / RUNTIME, the ABI of the
        generated wrapper, the scratch and the barrier; ``plan.describe()``
        prints one), ``providers`` (the generated ``extern "C"`` symbol and the
        scratch size and alignment of each call) and ``source`` (the generated
        CUDA C++ of the kernel's bundle). ``str()`` folds the bundle's ``#define``
        lines; ``explanation.report(defines=True)`` shows them.

    Raises:
        CoopError: the error the launch would raise (an `InvalidArgumentError`
            for a bad option, and so on).

    Example:
        ::

            @cuda.jit
            def copy_tile(source, destination):
                block = coop.this_block()
                items = coop.ThreadData(2)
                coop.load(block, source, items, algorithm="transpose")
                coop.store(block, destination, items, algorithm="transpose")

            source = np.arange(256, dtype=np.int32)
            explanation = coop.explain(copy_tile, source, np.zeros_like(source), grid=1, block=128)
            print(explanation.plans[0].describe())
            print(explanation.source[:300])
    """
    for backend in BACKENDS.values():
        module = sys.modules.get(backend.integration)
        if module is not None and module.owns(kernel):
            return module.explain(kernel, *args, grid=grid, block=block, cluster=cluster)
    raise InvalidArgumentError(
        f"coop.explain: argument 'kernel' = {kernel!r} is not allowed; expected a kernel of an active backend "
        f"({', '.join(BACKENDS)}; activate one with coop.register)"
    )
