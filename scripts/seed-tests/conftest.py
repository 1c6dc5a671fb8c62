"""Harness for NVIDIA's own cuda.coop runtime tests (the seed's), run against this
project's installed cuda.coop and numba-cuda-mlir.

Written for this project; NVIDIA's test files sit beside it unmodified.

* Import mapping: the tests spell ``from cuda import coop``, ``import
  cuda.coop.numba_mlir`` and ``numba_cuda_mlir.cuda``; all three resolve to the
  installed packages as they are, so nothing is re-registered. The only check made
  here is that they import, so that a missing module fails loudly at collection.
* Exclusions: files that import NVIDIA-private modules (``cuda.coop.numba_mlir._block``,
  ``cuda.coop.numba_mlir._single_phase_rewrites``) or NVIDIA's private test support
  package are not collected (``collect_ignore``); README.txt lists them.
* Compile-only shim: on when COOP_SEED_SHIM is unset or 1, off with COOP_SEED_SHIM=0.
  With it, ``kernel[grid, block](*args)`` plans, compiles (NVRTC) and links the
  kernel for that launch through ``coop.explain`` and then ends the test as skipped
  ("compiled (no GPU)"); ``cuda.is_available`` answers True, ``cuda.synchronize``
  does nothing and the device-array helpers are NumPy stand-ins. With the shim off
  the harness does nothing but the above: every kernel really runs and every
  assertion stands.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

SHIM = os.environ.get("COOP_SEED_SHIM", "1").strip().lower() not in ("0", "false", "no", "off")

# --- exclusions (NVIDIA-private internals; see README.txt) -------------------------
collect_ignore = [
    "test_histogram.py",  # cuda.coop.numba_mlir._block (two-phase BlockHistogram API), ..support.runtime
    "test_adjacent_difference.py",  # cuda.coop.numba_mlir._block (BlockAdjacentDifferenceType), ..support.runtime
    "test_discontinuity.py",  # cuda.coop.numba_mlir._block (BlockDiscontinuityType), ..support.runtime
    "test_run_length_decode.py",  # cuda.coop.numba_mlir._block, ._single_phase_rewrites, ..support.runtime
]

# --- CCCL headers ------------------------------------------------------------------
# reduce_batched needs a CCCL with cub::WarpReduceBatched (3.5+); the seed's documented
# switch for the header root is CUDA_COOP_CCCL_ROOT. scripts/gpu-python-env.sh exports
# the carried newest headers as COOP_NEWEST_CCCL ("CUDA_COOP_CCCL_ROOT takes it"); here
# they are handed on when the caller has not chosen a root. Under the shim only, the
# checkout's .deps/cccl-newest headers are used when present.
if not os.environ.get("CUDA_COOP_CCCL_ROOT"):
    _newest = os.environ.get("COOP_NEWEST_CCCL")
    if not _newest and SHIM:
        _candidate = os.path.join(
            os.path.dirname(__file__), "..", ".deps", "cccl-newest", "nvidia", "cu13", "include", "cccl"
        )
        _newest = os.path.abspath(_candidate) if os.path.isdir(_candidate) else None
    if _newest:
        os.environ["CUDA_COOP_CCCL_ROOT"] = _newest

# --- import mapping -----------------------------------------------------------------
# NVIDIA's spellings resolve to the installed packages directly; import them here so
# a missing one is a collection error rather than a silent importorskip.
import numba_cuda_mlir  # noqa: F401
from numba_cuda_mlir import cuda as _cuda

import cuda.coop.numba_mlir  # noqa: F401
from cuda import coop

_SUBPROCESS_TESTS = {
    # These launch their kernels in a child interpreter and expect a device trap.
    "test_neighbors.py::test_invalid_runtime_count_traps_before_narrowing",
    "test_run_length.py::test_invalid_inputs_trap_before_decode_or_bulk_writes",
}


def pytest_configure(config):
    for marker in ("backend_numba_mlir", "runtime", "gpu", "evidence_for(feature, backend, evidence)"):
        config.addinivalue_line("markers", f"{marker}: marker used by NVIDIA's cuda.coop tests")


class _HostArray(np.ndarray):
    """NumPy stand-in for a device array (shim only)."""

    def copy_to_host(self, ary=None, stream=0):
        if ary is not None:
            ary[...] = self
            return ary
        return np.array(self)

    def copy_to_device(self, ary, stream=0):
        self[...] = ary


def _host(array):
    return np.array(array, copy=True).view(_HostArray)


def _plain(value):
    return value.view(np.ndarray) if isinstance(value, _HostArray) else value


def _install_shim():
    from numba_cuda_mlir.descriptor import MLIRDispatcher

    def compile_only(kernel, configuration):
        if not isinstance(configuration, tuple):
            configuration = (configuration,)
        grid, block = configuration[0], configuration[1]
        cluster = configuration[3] if len(configuration) > 3 else None

        def launch(*args):
            args = tuple(_plain(a) for a in args)
            if cluster is None:
                coop.explain(kernel, *args, grid=grid, block=block)
            else:
                coop.explain(kernel, *args, grid=grid, block=block, cluster=cluster)
            pytest.skip("compiled (no GPU)")

        return launch

    MLIRDispatcher.__getitem__ = compile_only
    _cuda.is_available = lambda: True
    _cuda.synchronize = lambda: None
    _cuda.to_device = lambda ary, stream=0, copy=True, to=None: _host(ary)
    _cuda.device_array = lambda shape, dtype=np.float64, strides=None, order="C", stream=0: np.zeros(
        shape, dtype=dtype, order=order
    ).view(_HostArray)
    _cuda.device_array_like = lambda ary, stream=0: np.zeros_like(np.asarray(ary)).view(_HostArray)


if SHIM:
    _install_shim()


def pytest_collection_modifyitems(config, items):
    if not SHIM:
        return
    for item in items:
        nodeid = item.nodeid.split("[", 1)[0]
        if any(nodeid.endswith(name) for name in _SUBPROCESS_TESTS):
            item.add_marker(
                pytest.mark.skip(
                    reason="launches its kernel in a child interpreter (needs a GPU; not compiled by the shim)"
                )
            )
