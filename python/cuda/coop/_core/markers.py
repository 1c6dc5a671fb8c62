"""API markers: the public functions are compile-time markers. Inside a kernel the
planner recognizes them by identity and replaces each call; on the host they
raise CoopCompilerContextRequiredError."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TypeVar

from .errors import CoopCompilerContextRequiredError

F = TypeVar("F", bound=Callable)


@dataclasses.dataclass(frozen=True)
class Marker:
    name: str  # the public name, also the engine's operation name
    family: str  # the engine catalog family, e.g. "load_store"
    implemented: bool  # False until the family lands in a backend


_MARKERS: dict[str, Marker] = {}


def host_call_error(name: str) -> CoopCompilerContextRequiredError:
    return CoopCompilerContextRequiredError(
        f"coop.{name}() was called on the host; cooperative primitives run only inside a kernel "
        "compiled by a registered kernel compiler (e.g. @cuda.jit from numba_cuda_mlir)"
    )


def marker(family: str, *, implemented: bool, host_value: bool = False) -> Callable[[F], F]:
    """Declares a public function as a marker of `family`. On the host it raises, unless
    `host_value`: then it runs, and its value is a compile-time constant a kernel may
    use as a global (a group descriptor made at module level)."""

    def declare(function: F) -> F:
        info = Marker(function.__name__, family, implemented)

        @functools.wraps(function)
        def on_host(*args, **kwargs):
            if host_value:
                return function(*args, **kwargs)
            raise host_call_error(info.name)

        on_host.__coop_marker__ = info
        _MARKERS[info.name] = info
        return on_host  # type: ignore[return-value]

    return declare


def marker_of(value: object) -> Marker | None:
    """The marker a Python object stands for, or None."""
    return getattr(value, "__coop_marker__", None)


def all_markers() -> dict[str, Marker]:
    return dict(_MARKERS)
