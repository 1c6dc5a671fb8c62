"""Which numba-cuda-mlir versions this backend is written against.

The planner reads and rewrites the compiler's untyped IR and calls private
lowering helpers, none of which are stable across minor series: a new series
needs the integration checked before SUPPORTED moves. The packaging extra pins
the same range; this check also covers installs that manage the compiler
themselves."""

from __future__ import annotations

import importlib.metadata
import re

from .._core.errors import IncompatibleCompilerError

SUPPORTED = ((0, 5), (0, 7))  # [low, high): 0.5.4 and 0.6.x
REQUIREMENT = "numba-cuda-mlir>=0.5.4,<0.7"  # as the packaging extras pin it


def _series(version: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def check_version(installed: str | None = None) -> str:
    """The installed version; raises IncompatibleCompilerError outside SUPPORTED."""
    if installed is None:
        try:
            installed = importlib.metadata.version("numba-cuda-mlir")
        except importlib.metadata.PackageNotFoundError as missing:
            raise IncompatibleCompilerError(
                f"cuda.coop's numba-cuda-mlir backend needs {REQUIREMENT}, which is not installed "
                '(pip install "cuda-coop[cu13]", or "cuda-coop[numba-cuda-mlir]" with your own CUDA toolkit)'
            ) from missing
    low, high = SUPPORTED
    if not low <= _series(installed) < high:
        raise IncompatibleCompilerError(
            f"cuda.coop supports numba-cuda-mlir>={low[0]}.{low[1]},<{high[0]}.{high[1]}; "
            f"numba-cuda-mlir {installed} is installed"
        )
    return installed
