"""A kernel without a declared block (coop.this_block()) is served by a dispatcher per block
shape, planned as if that block were declared: its launches take the plain path (no launch
specialization, no NumbaPerformanceWarning), a new grid or shared memory size compiles
nothing, a new block shape compiles once, and with cache=True a fresh process finds every
block shape it has seen on disk and compiles nothing. Without a GPU: the compiler's own
launch path up to the driver (launch_without_a_gpu), compiles for sm_90."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import pytest
from launch_without_a_gpu import launch
from numba_cuda_mlir import cuda, descriptor, types

# Every warning is an error in the child, but for the deprecations NumPy raises against the kernel
# compiler's own imports (a newer NumPy than it was written for): those are neither ours nor a launch's.
WARNINGS_ARE_ERRORS = ("-W", "error", "-W", "ignore::DeprecationWarning")

from cuda import coop
from cuda.coop.numba_mlir import _dispatch
from cuda.coop.numba_mlir._explain import _capability

ARRAY = types.Array(types.int32, 1, "C")
ARGS = (ARRAY, ARRAY)
GRID = 128  # the compiler warns of low occupancy below 128 blocks: not what these tests look at


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


def undeclared_kernel():
    @cuda.jit
    def copy(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, coop.inclusive_sum(block, items))

    return copy


def test_a_launch_runs_the_dispatcher_of_its_block_shape(compiles):
    kernel = undeclared_kernel()
    first = launch(kernel, GRID, 128, ARGS)
    assert len(compiles) == 1
    clone = kernel._coop_per_block[((128, 1, 1), None)]
    assert first.native is clone._c and first.native is not kernel._c
    assert not kernel._requires_launch_config and not kernel._launch_config_overloads and not kernel.overloads
    assert list(clone.overloads) == [ARGS] and not clone._requires_launch_config
    assert _dispatch.compile_results(kernel) == list(clone.overloads.values())


def test_a_new_grid_or_shared_memory_size_compiles_nothing_and_a_new_block_once(compiles):
    kernel = undeclared_kernel()
    first = launch(kernel, GRID, 128, ARGS)
    for grid, sharedmem in [(GRID * 2, 0), ((GRID, 3), 4096)]:
        assert launch(kernel, grid, 128, ARGS, sharedmem).native is first.native
    assert len(compiles) == 1, "a new grid or shared memory size compiled the kernel again"
    other = launch(kernel, GRID, (32, 2), ARGS)
    assert other.native is kernel._coop_per_block[((32, 2, 1), None)]._c is not first.native
    assert len(compiles) == 2 and len(_dispatch.compile_results(kernel)) == 2


def test_a_launch_after_the_first_is_ready_without_preparing(monkeypatch):
    """The launcher's readiness check answers from the dispatcher of the block shape: no
    compile, no lock, no _prepare_for_launch, as on the plain path."""
    kernel = undeclared_kernel()
    launch(kernel, GRID, 128, ARGS)
    prepared = []
    prepare = descriptor.MLIRDispatcher._prepare_for_launch
    monkeypatch.setattr(
        descriptor.MLIRDispatcher, "_prepare_for_launch", lambda *a, **k: prepared.append(1) or prepare(*a, **k)
    )
    for _ in range(3):
        launch(kernel, GRID, 128, ARGS)
    assert prepared == []


def test_a_declared_block_and_a_plain_kernel_keep_the_plain_path(compiles):
    @cuda.jit
    def declared(source, destination):
        block = coop.this_block(128)
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, items)

    @cuda.jit
    def plain(source, destination):
        destination[cuda.grid(1)] = source[cuda.grid(1)]

    for kernel in (declared, plain):
        assert launch(kernel, GRID, 128, ARGS).native is kernel._c
        assert list(kernel.overloads) == [ARGS] and not kernel._requires_launch_config
        assert "_get_ready_launch" not in kernel.__dict__
    assert launch(plain, GRID, 64, ARGS).native is plain._c
    assert len(compiles) == 2


def test_bind_launch_and_launches_share_the_dispatcher_of_a_block_shape(compiles):
    kernel = undeclared_kernel()
    bound = _dispatch.compile_result_for(kernel, ARGS, {"grid": (1, 1, 1), "block": (128, 1, 1), "cluster": None})
    assert launch(kernel, GRID, 128, ARGS).native is kernel._coop_per_block[((128, 1, 1), None)]._c
    assert len(compiles) == 1 and _dispatch.compile_results(kernel) == [bound]


def test_an_extent_given_as_an_argument_compiles_once_per_value_and_block_shape(compiles):
    """ThreadData(n) of a kernel argument: the planner asks to see n as a literal; the
    dispatcher of the block shape compiles once per value, and its launchers find the
    overload by the literal type (a value seen before compiles nothing)."""

    @cuda.jit
    def copy(source, destination, items_per_thread):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items)
        coop.store(block, destination, items)

    argtypes = (ARRAY, ARRAY, types.int64)
    first = launch(copy, GRID, 128, argtypes, values=(None, None, 2))
    assert launch(copy, GRID, 128, argtypes, values=(None, None, 4)).native is first.native
    assert len(compiles) == 2
    for items_per_thread in (2, 4, 2):
        assert launch(copy, GRID * 2, 128, argtypes, values=(None, None, items_per_thread)).native is first.native
    assert len(compiles) == 2
    clone = copy._coop_per_block[((128, 1, 1), None)]
    assert first.native is clone._c and clone._literal_arg_positions == {2}


def test_a_launch_prints_no_warning():
    kernel = undeclared_kernel()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # the project's pytest settings ignore the compiler's performance warnings
        launch(kernel, GRID, 128, ARGS)
        launch(kernel, GRID, 64, ARGS)
    assert [str(warning.message) for warning in caught] == []


def test_with_another_planner_reading_the_launch_the_kernel_stays_launch_specialized(compiles):
    """Another planner may read the grid: the kernel is specialized on its whole launch, as the
    compiler makes it (a new grid compiles again)."""
    from numba_cuda_mlir._whole_function_planners import WholeFunctionPlanner, _planner_registry

    class Bystander(WholeFunctionPlanner):
        def run(self):
            return False

    _planner_registry.register(Bystander)
    try:
        kernel = undeclared_kernel()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the compiler's note that this compile skips its disk cache
            first = launch(kernel, GRID, 128, ARGS)
            second = launch(kernel, GRID * 2, 128, ARGS)
        assert kernel._requires_launch_config and "_coop_per_block" not in kernel.__dict__
        assert first.native is not kernel._c and second.native is not first.native
        assert len(compiles) == 2
    finally:
        _planner_registry._planners.remove(Bystander)


KERNELS = """
from numba_cuda_mlir import cuda
from cuda import coop

@cuda.jit(cache=True)
def undeclared(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, source, items)
    coop.store(block, destination, coop.inclusive_sum(block, items))
"""

CHILD = """
import json, sys
from numba_cuda_mlir import mlir_compiler, tools, types
from cuda.coop.numba_mlir import _dispatch, _planner
from launch_without_a_gpu import launch

tools._cached_cc = (9, 0)
seen = {"kernel_compiles": 0, "planner_runs": 0, "bundles": 0}
entry = mlir_compiler.compile_mlir
def counted(*args, **kwargs):
    result = entry(*args, **kwargs)
    seen["kernel_compiles"] += 1  # to the end: the generic compile a first launch tries may stop in the planner
    return result
mlir_compiler.compile_mlir = counted
run = _planner.CoopWholeFunctionPlanner.run
def counted_run(self):
    seen["planner_runs"] += 1
    return run(self)
_planner.CoopWholeFunctionPlanner.run = counted_run
_planner._explain_recorders.append(lambda state, calls, bundle: seen.__setitem__("bundles", seen["bundles"] + 1))

import kernels

array = types.Array(types.int32, 1, "C")
for block in json.loads(sys.argv[1]):
    done = launch(kernels.undeclared, 128, tuple(block), (array, array))
    assert done.native is not kernels.undeclared._c
seen["hits"] = _dispatch.cache_hits(kernels.undeclared)
print(json.dumps(seen))
"""


def launch_in_a_fresh_process(project: pathlib.Path, blocks: list) -> dict:
    environment = dict(os.environ, XDG_CACHE_HOME=str(project / "xdg"), NUMBA_CACHE_DIR=str(project / "kernels"))
    here = pathlib.Path(__file__).parent
    environment["PYTHONPATH"] = os.pathsep.join([str(project), str(here), *sys.path])
    done = subprocess.run(
        [sys.executable, *WARNINGS_ARE_ERRORS, "-c", textwrap.dedent(CHILD), json.dumps(blocks)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stderr == "", done.stderr[-4000:]  # no warning, ours or the compiler's
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fresh_process_compiles_nothing_for_a_block_shape_it_has_seen(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    first = launch_in_a_fresh_process(tmp_path, [[128], [32, 2]])
    assert (first["kernel_compiles"], first["bundles"], first["hits"]) == (2, 2, 0)
    again = launch_in_a_fresh_process(tmp_path, [[32, 2], [128]])
    assert (again["kernel_compiles"], again["planner_runs"], again["bundles"], again["hits"]) == (0, 0, 0, 2)
    another = launch_in_a_fresh_process(tmp_path, [[128], [64]])
    assert (another["kernel_compiles"], another["bundles"], another["hits"]) == (1, 1, 1)
