"""The installed distribution's version. pyproject.toml is the one place it is written
(CMake reads it from there too), so the package asks its own metadata for it."""

from __future__ import annotations

import importlib.metadata

DISTRIBUTION = "cuda-coop"
UNKNOWN = "0+unknown"  # a source tree on sys.path without installed metadata


def package_version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return UNKNOWN
