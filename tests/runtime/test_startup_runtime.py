"""Launches (GPU): a kernel that declares its block compiles once for every grid and
dynamic shared memory size and computes the right tiles; a launch with another block
is refused; with cache=True a fresh process launches coop and plain kernels from the
disk cache without the kernel compiler, the planner or NVRTC."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import _planner

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@cuda.jit
def scan_tiles(source, destination):
    block = coop.this_block(THREADS)
    items = coop.ThreadData(ITEMS)
    start = cuda.blockIdx.x * TILE
    coop.load(block, source, items, offset=start)
    coop.store(block, destination, coop.inclusive_sum(block, items), offset=start)


def expected(host):
    return np.cumsum(host.reshape(-1, TILE), axis=1, dtype=host.dtype).ravel()


def test_a_declared_block_compiles_once_for_every_grid_and_shared_memory_size():
    runs = []
    recorder = lambda state, calls, bundle: runs.append(bundle)
    _planner._explain_recorders.append(recorder)
    try:
        for blocks, sharedmem in [(1, 0), (3, 0), (17, 0), (5, 1024)]:
            host = np.arange(blocks * TILE, dtype=np.int32) % 7
            source, destination = cuda.to_device(host), cuda.device_array_like(host)
            scan_tiles[blocks, THREADS, 0, sharedmem](source, destination)
            np.testing.assert_array_equal(destination.copy_to_host(), expected(host))
    finally:
        _planner._explain_recorders.remove(recorder)
    assert len(runs) == 1, "a new grid or shared memory size planned the kernel again"
    assert len(scan_tiles.overloads) == 1 and not scan_tiles._launch_config_overloads


def test_a_launch_with_another_block_is_refused():
    host = np.zeros(TILE, dtype=np.int32)
    with pytest.raises(coop.InvalidGroupError, match=r"coop.this_block\(128\).*\(64, 1, 1\)"):
        scan_tiles[1, 64](cuda.to_device(host), cuda.device_array_like(host))


CHILD = """
import json, sys, time
start = time.perf_counter()
import numpy as np
from numba_cuda_mlir import cuda, mlir_compiler
from cuda import coop
from cuda.coop.numba_mlir import _planner
seen = {"kernel_compiles": 0, "planner_runs": 0}
entry = mlir_compiler.compile_mlir
def counted(*args, **kwargs):
    seen["kernel_compiles"] += 1
    return entry(*args, **kwargs)
mlir_compiler.compile_mlir = counted
run = _planner.CoopWholeFunctionPlanner.run
def counted_run(self):
    seen["planner_runs"] += 1
    return run(self)
_planner.CoopWholeFunctionPlanner.run = counted_run

@cuda.jit(cache=True)
def coop_scan(source, destination):
    block = coop.this_block(128)
    items = coop.ThreadData(4)
    start = cuda.blockIdx.x * 512
    coop.load(block, source, items, offset=start)
    coop.store(block, destination, coop.inclusive_sum(block, items), offset=start)

@cuda.jit(cache=True)
def plain_double(source, destination):
    i = cuda.grid(1)
    destination[i] = source[i] * 2

host = np.arange(4 * 512, dtype=np.int32) % 5
source, destination = cuda.to_device(host), cuda.device_array_like(host)
coop_scan[4, 128](source, destination)
seen["coop_ok"] = bool((destination.copy_to_host() == np.cumsum(host.reshape(4, 512), axis=1).ravel()).all())
plain_double[4, 512](source, destination)
seen["plain_ok"] = bool((destination.copy_to_host() == host * 2).all())
seen["hits"] = {k.py_func.__name__: sum(k.stats.cache_hits.values()) for k in (coop_scan, plain_double)}
print(json.dumps(seen))
"""


def test_a_fresh_process_launches_from_the_disk_cache(tmp_path):
    script = tmp_path / "kernels_for_cache.py"
    script.write_text(textwrap.dedent(CHILD))
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))

    def launch():
        done = subprocess.run(
            [sys.executable, str(script)], env=environment, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-4000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first, second = launch(), launch()
    assert first["coop_ok"] and first["plain_ok"] and second["coop_ok"] and second["plain_ok"]
    assert first["hits"] == {"coop_scan": 0, "plain_double": 0}
    assert second["hits"] == {"coop_scan": 1, "plain_double": 1}
    assert (second["kernel_compiles"], second["planner_runs"]) == (0, 0)


def test_doctor_sees_the_gpu_and_its_architecture():
    done = subprocess.run(
        [sys.executable, "-m", "cuda.coop", "doctor", "--json"], capture_output=True, text=True, check=True
    )
    gpu = json.loads(done.stdout)["gpu"]
    major, minor = cuda.get_current_device().compute_capability
    assert gpu["visible"] and gpu["arch"] == f"sm_{major}{minor}" == gpu["explain_targets"]
