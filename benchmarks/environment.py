"""What the numbers were measured on: date, GPU, driver, toolkit and package
versions, and the GPU's state (clocks, temperature, power) as found."""

from __future__ import annotations

import datetime
import importlib.metadata
import platform
import re
import shutil
import subprocess


def _run(command: list[str]) -> str | None:
    if shutil.which(command[0]) is None:
        return None
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _nvidia_smi() -> dict:
    fields = [
        "name",
        "driver_version",
        "clocks.sm",
        "clocks.mem",
        "clocks.max.sm",
        "temperature.gpu",
        "power.draw",
        "persistence_mode",
    ]
    text = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader"])
    if not text:
        return {}
    values = [value.strip() for value in text.splitlines()[0].split(",")]
    return dict(zip(fields, values))


def collect() -> dict:
    import cupy as cp

    from cuda.coop._engine_session import engine

    properties = cp.cuda.runtime.getDeviceProperties(0)
    nvcc = _run(["nvcc", "--version"]) or ""
    release = re.search(r"release [\d.]+, V([\d.]+)", nvcc)
    toolkit = engine().toolkit
    smi = _nvidia_smi()
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gpu": properties["name"].decode(),
        "compute_capability": f"{properties['major']}.{properties['minor']}",
        "sm_count": properties["multiProcessorCount"],
        "l2_bytes": properties["l2CacheSize"],
        "memory_bytes": properties["totalGlobalMem"],
        "driver": smi.get("driver_version"),
        "driver_cuda_version": cp.cuda.runtime.driverGetVersion(),
        "cuda_runtime_version": cp.cuda.runtime.runtimeGetVersion(),
        "nvcc": release.group(1) if release else None,
        "nvrtc": toolkit.get("nvrtc_version"),
        "nvjitlink": toolkit.get("nvjitlink_version"),
        "cccl": toolkit.get("cccl_version"),
        "cccl_include": toolkit.get("cccl_include"),
        "numba_cuda_mlir": _version("numba-cuda-mlir") or _version("numba_cuda_mlir"),
        "cuda_coop": _version("cuda-coop") or _version("cuda_coop"),
        "cupy": cp.__version__,
        "python": platform.python_version(),
        "commit": _run(["git", "rev-parse", "--short", "HEAD"]),
        "gpu_state": smi,
    }


def tag(environment: dict) -> str:
    """<date>_<gpu>_<versions>, for the results file name."""
    gpu = re.sub(r"[^A-Za-z0-9]+", "-", environment["gpu"].replace("NVIDIA", "")).strip("-")
    versions = f"coop-{environment['cuda_coop']}_ncm-{environment['numba_cuda_mlir']}_cuda-{environment['nvrtc']}"
    return f"{environment['date'][:10]}_{gpu}_{versions}"
