"""`coop doctor`: which NVRTC, nvJitLink, headers, cache and kernel compiler cuda.coop uses,
and where each came from. It describes what it cannot use instead of stopping at it:
diagnosing is its job. Exits with 1 when the toolkit cannot be located."""

from __future__ import annotations

import importlib.metadata
import json

from . import _engine
from ._core.errors import from_engine_error
from ._core.version import package_version
from ._default_target import DEFAULT_ARCH
from ._engine_session import engine, located
from ._toolkit_locate import wheel_roots
from ._toolkit_origin import PIECES, origin


def _compiler_version() -> str:
    try:
        return importlib.metadata.version("numba-cuda-mlir")
    except importlib.metadata.PackageNotFoundError:
        return 'not installed (pip install "cuda-coop[cu13]")'


def _cache() -> dict:
    try:
        stats = engine().cache_stats()
    except _engine.EngineError as error:
        return {"error": str(from_engine_error(error))}
    return {k: getattr(stats, k) for k in ("directory", "enabled", "entries", "bytes")}


def _toolkit() -> dict:
    try:
        toolkit = engine().toolkit
    except _engine.EngineError as error:
        return {"error": str(from_engine_error(error))}
    roots = wheel_roots()
    by_pathfinder = located()
    found = dict(toolkit)
    found["origins"] = {
        field: origin(field, toolkit[field], roots, _found_via(by_pathfinder, field, toolkit[field]))
        for field in PIECES
    }
    found["cuda_pathfinder"] = {field: piece.found_via for field, piece in by_pathfinder.items()}
    return found


def _found_via(by_pathfinder: dict, field: str, used: str) -> str:
    piece = by_pathfinder.get(field)
    return piece.found_via if piece is not None and piece.path == used else ""


def _pathfinder_version() -> str:
    try:
        return importlib.metadata.version("cuda-pathfinder")
    except importlib.metadata.PackageNotFoundError:
        return "not installed (pip install cuda-pathfinder); the engine searched on its own"


def _gpu() -> dict:
    """Whether a GPU is visible and its architecture; which architecture a compile targets
    without one. Asked through the kernel compiler, as the kernels' own launches ask."""
    absent = {"visible": False, "explain_targets": DEFAULT_ARCH}
    try:
        from numba_cuda_mlir import cuda
    except ImportError:
        return {**absent, "reason": "numba-cuda-mlir is not installed"}
    try:
        if not cuda.is_available():
            return {**absent, "reason": "no CUDA driver or device answers"}
        device = cuda.get_current_device()
        major, minor = device.compute_capability
    except Exception as error:  # noqa: BLE001 (a failing driver is what doctor is for: say it, do not stop)
        return {**absent, "reason": f"{type(error).__name__}: {error}"}
    name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
    arch = f"sm_{major}{minor}"
    return {"visible": True, "name": name, "arch": arch, "explain_targets": arch}


def report() -> dict:
    return {
        "cuda.coop": package_version(),
        "engine": _engine.engine_version(),
        "numba-cuda-mlir": _compiler_version(),
        "cuda-pathfinder": _pathfinder_version(),
        "gpu": _gpu(),
        "toolkit": _toolkit(),
        "cache": _cache(),
    }


def _gpu_line(gpu: dict) -> str:
    if gpu["visible"]:
        return f"{'GPU:':<17}{gpu['name']} ({gpu['arch']}); explain and compiles target {gpu['explain_targets']}"
    return f"{'GPU:':<17}none visible ({gpu['reason']}); explain and compiles target {gpu['explain_targets']}"


def _text(found: dict) -> str:
    names = ("cuda.coop", "engine", "numba-cuda-mlir", "cuda-pathfinder")
    lines = [f"{name + ':':<17}{found[name]}" for name in names]
    lines.append(_gpu_line(found["gpu"]))
    toolkit = found["toolkit"]
    if "error" in toolkit:
        lines.append(f"{'toolkit:':<17}not usable: {toolkit['error']}")
    else:
        versions = {"nvrtc_library": "nvrtc_version", "nvjitlink_library": "nvjitlink_version"}
        for field, (label, _) in PIECES.items():
            version = f" ({toolkit[versions[field]]})" if field in versions else ""
            if field == "cccl_include":
                version = f" (CCCL {toolkit['cccl_version']})"
            lines.append(f"{label + ':':<17}{toolkit[field]}{version} [{toolkit['origins'][field]}]")
        lines.append(f"{'identity:':<17}{toolkit['identity']}")
    cache = found["cache"]
    if "error" in cache:
        lines.append(f"{'cache:':<17}not usable: {cache['error']}")
    else:
        disabled = "" if cache["enabled"] else " (disabled)"
        lines.append(
            f"{'cache:':<17}{cache['directory']}{disabled}, {cache['entries']} entries, {cache['bytes']} bytes"
        )
    return "\n".join(lines)


def run(as_json: bool) -> int:
    found = report()
    print(json.dumps(found, indent=2) if as_json else _text(found))
    return 1 if "error" in found["toolkit"] else 0
