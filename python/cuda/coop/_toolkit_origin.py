"""Where each toolkit piece the engine found came from, and which pip package provides it:
what `coop doctor` shows and what an error about a missing piece names."""

from __future__ import annotations

import os

# The engine's toolkit fields, with the pip package that provides each on a machine with only a driver.
PIECES = {
    "nvrtc_library": ("NVRTC", "nvidia-cuda-nvrtc"),
    "nvjitlink_library": ("nvJitLink", "nvidia-nvjitlink"),
    "cuda_include": ("CUDA headers", "nvidia-cuda-runtime"),
    "cccl_include": ("CCCL headers", "nvidia-cuda-cccl"),
}


def _under(path: str, root: str) -> bool:
    # /usr/local/cuda is usually a link to /usr/local/cuda-13.x: compare both spellings.
    for a, b in ((path, root), (os.path.realpath(path), os.path.realpath(root))):
        if os.path.commonpath([os.path.abspath(a), os.path.abspath(b)]) == os.path.abspath(b):
            return True
    return False


def origin(field: str, path: str, wheel_roots: list[str]) -> str:
    """ "wheel nvidia-cuda-nvrtc", "CUDA_HOME", "CUDA_COOP_CCCL_ROOT", "conda" or "system"."""
    if not path:
        return "not found"
    explicit = [name for name in ("CUDA_COOP_CCCL_ROOT",) if field == "cccl_include"]
    for name in [*explicit, "CUDA_HOME", "CUDA_PATH"]:
        value = os.environ.get(name, "").strip()
        if value and os.path.isdir(value) and _under(path, value):
            return name
    if any(_under(path, root) for root in wheel_roots):
        return f"wheel {PIECES[field][1]}"
    conda = os.environ.get("CONDA_PREFIX", "").strip()
    if conda and os.path.isdir(conda) and _under(path, conda):
        return "conda"
    return "system"
