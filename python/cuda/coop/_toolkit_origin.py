"""Where each toolkit piece the engine uses came from, and which pip package provides it:
what `coop doctor` shows and what an error about a missing piece names."""

from __future__ import annotations

import os

from ._toolkit_locate import PIECES as _LOCATED

# The engine's toolkit fields, with the pip package that provides each on a machine with only a driver.
PIECES = {field: (label, package) for field, (label, _, package) in _LOCATED.items()}


def _under(path: str, root: str) -> bool:
    # /usr/local/cuda is usually a link to /usr/local/cuda-13.x: compare both spellings.
    for a, b in ((path, root), (os.path.realpath(path), os.path.realpath(root))):
        if os.path.commonpath([os.path.abspath(a), os.path.abspath(b)]) == os.path.abspath(b):
            return True
    return False


def _explicit(field: str, path: str) -> str | None:
    name = _LOCATED[field][1]
    value = os.environ.get(name, "").strip()
    if value and os.path.exists(value) and _under(path, value):
        return name
    return None


def origin(field: str, path: str, wheel_roots: list[str], found_via: str = "") -> str:
    """ "wheel nvidia-cuda-nvrtc", "wheel cuda-cccl", "CUDA_COOP_CCCL_ROOT" (the variable naming the
    piece), "CUDA_HOME", "CUDA_PATH", "conda" or "system". `found_via` is cuda-pathfinder's word for
    how it found the piece, when it did."""
    if not path:
        return "not found"
    explicit = _explicit(field, path)
    if explicit:
        return explicit
    if found_via == "cuda-cccl":
        return "wheel cuda-cccl"
    if found_via == "site-packages" or any(_under(path, root) for root in wheel_roots):
        return f"wheel {PIECES[field][1]}"
    conda = os.environ.get("CONDA_PREFIX", "").strip()
    if found_via == "conda" or (conda and os.path.isdir(conda) and _under(path, conda)):
        return "conda"
    for name in ("CUDA_HOME", "CUDA_PATH"):
        value = os.environ.get(name, "").strip()
        if value and os.path.isdir(value) and _under(path, value):
            return name
    return "system"
