"""Launches (GPU) of kernels without a declared block (coop.this_block()): each block shape
is served by its own dispatcher, planned as if declared, so the tiles are right for every
block shape and grid, a new grid compiles nothing, nothing is launch-specialized, no
warning is printed (ours or the compiler's), and with cache=True a fresh process
launches every block shape it has seen from the disk cache without compiling."""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import _dispatch, _planner

# Every warning is an error in the child, but for the deprecations NumPy raises against the kernel
# compiler's own imports (a newer NumPy than it was written for): those are neither ours nor a launch's.
WARNINGS_ARE_ERRORS = ("-W", "error", "-W", "ignore::DeprecationWarning")

ITEMS = 4


def scan_kernel():
    """A fresh kernel per test: what a test counts is its own."""

    @cuda.jit
    def scan_tiles(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(ITEMS)
        tile = cuda.blockDim.x * cuda.blockDim.y * ITEMS
        coop.load(block, source, items, offset=cuda.blockIdx.x * tile)
        coop.store(block, destination, coop.inclusive_sum(block, items), offset=cuda.blockIdx.x * tile)

    return scan_tiles


def expected(host, tile):
    return np.cumsum(host.reshape(-1, tile), axis=1, dtype=host.dtype).ravel()


def test_every_block_shape_and_grid_computes_its_tiles_and_compiles_once_per_block_shape():
    scan_tiles = scan_kernel()
    runs = []
    recorder = lambda state, calls, bundle: runs.append(bundle)
    _planner._explain_recorders.append(recorder)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # the project's pytest settings ignore the compiler's performance warnings
            for block, blocks in [(128, 128), (128, 300), ((32, 4), 128), (64, 130), (128, 129)]:
                threads = block if isinstance(block, int) else block[0] * block[1]
                host = np.arange(blocks * threads * ITEMS, dtype=np.int32) % 7
                source, destination = cuda.to_device(host), cuda.device_array_like(host)
                scan_tiles[blocks, block](source, destination)
                np.testing.assert_array_equal(destination.copy_to_host(), expected(host, threads * ITEMS))
    finally:
        _planner._explain_recorders.remove(recorder)
    assert [str(warning.message) for warning in caught] == []
    assert len(runs) == 3, "a block shape was planned more than once"
    assert not scan_tiles._requires_launch_config and not scan_tiles._launch_config_overloads
    assert len(_dispatch.compile_results(scan_tiles)) == 3


def test_a_launcher_configured_once_switches_to_the_dispatcher_of_its_block_shape():
    scan_tiles = scan_kernel()
    host = np.arange(128 * 256 * ITEMS, dtype=np.int32) % 5
    source, destination = cuda.to_device(host), cuda.device_array_like(host)
    launch = scan_tiles[128, 256]
    for _ in range(3):
        destination[:] = 0
        launch(source, destination)
        np.testing.assert_array_equal(destination.copy_to_host(), expected(host, 256 * ITEMS))
    assert launch._kernel_dispatcher is scan_tiles._coop_per_block[((256, 1, 1), None)]._c


CHILD = """
import json, sys
import numpy as np
from numba_cuda_mlir import cuda, mlir_compiler
from cuda import coop
from cuda.coop.numba_mlir import _dispatch, _planner

seen = {"kernel_compiles": 0, "planner_runs": 0}
entry = mlir_compiler.compile_mlir
def counted(*args, **kwargs):
    result = entry(*args, **kwargs)
    seen["kernel_compiles"] += 1
    return result
mlir_compiler.compile_mlir = counted
run = _planner.CoopWholeFunctionPlanner.run
def counted_run(self):
    seen["planner_runs"] += 1
    return run(self)
_planner.CoopWholeFunctionPlanner.run = counted_run

@cuda.jit(cache=True)
def coop_scan(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    start = cuda.blockIdx.x * cuda.blockDim.x * 4
    coop.load(block, source, items, offset=start)
    coop.store(block, destination, coop.inclusive_sum(block, items), offset=start)

seen["ok"] = []
for threads in json.loads(sys.argv[1]):
    host = np.arange(128 * threads * 4, dtype=np.int32) % 5
    source, destination = cuda.to_device(host), cuda.device_array_like(host)
    coop_scan[128, threads](source, destination)
    wanted = np.cumsum(host.reshape(128, threads * 4), axis=1, dtype=np.int32).ravel()
    seen["ok"].append(bool((destination.copy_to_host() == wanted).all()))
seen["hits"] = _dispatch.cache_hits(coop_scan)
print(json.dumps(seen))
"""


def test_a_fresh_process_launches_every_block_shape_it_has_seen_from_the_disk_cache(tmp_path):
    script = tmp_path / "undeclared_for_cache.py"
    script.write_text(textwrap.dedent(CHILD))
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), NUMBA_CACHE_DIR=str(tmp_path / "kernels"))

    def launch(blocks):
        done = subprocess.run(
            [sys.executable, *WARNINGS_ARE_ERRORS, str(script), json.dumps(blocks)],
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        assert done.stderr == "", done.stderr[-4000:]  # no warning, ours or the compiler's
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = launch([128, 64])
    second = launch([64, 128])
    assert first["ok"] == second["ok"] == [True, True]
    assert (first["kernel_compiles"], first["hits"]) == (2, 0)
    assert (second["kernel_compiles"], second["planner_runs"], second["hits"]) == (0, 0, 2)
