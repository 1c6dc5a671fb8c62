"""numba-cuda-mlir's disk cache (cache=True) with cuda.coop imported, without a GPU:
kernels compile for sm_90 through kernel.compile() (the generic path a kernel with a
declared block takes at launch too), each process a fresh interpreter sharing one
cache directory. A plain kernel and a coop kernel that declares its block load from
disk in a second process without the kernel compiler, the planner or NVRTC; every
input of the key, changed alone, misses."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

KERNELS = """
from numba_cuda_mlir import cuda
from cuda import coop
import ops

@cuda.jit(cache=True)
def plain(source, destination):
    i = cuda.grid(1)
    destination[i] = source[i] * 2

@cuda.jit(cache=True)
def declared(source, destination):
    block = coop.this_block(BLOCK)
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, coop.inclusive_scan(block, items, scan_op=ops.combine))

@cuda.jit(cache=True)
def undeclared(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    coop.load(block, source, items)
    coop.store(block, destination, items)
"""

OPS = """
def combine(a, b):
    return a + b
"""

CHILD = """
import json, sys
from numba_cuda_mlir import mlir_compiler, tools, types
from cuda.coop.numba_mlir import _dispatch, _planner

settings = json.loads(sys.argv[1])
tools._cached_cc = tuple(settings.get("cc", (9, 0)))
for name, value in settings.get("patch", {}).items():
    setattr(_dispatch, name, lambda *args, value=value: value)
seen = {"planner_runs": 0, "kernel_compiles": 0, "bundles": []}
run = _planner.CoopWholeFunctionPlanner.run
def counted_run(self):
    seen["planner_runs"] += 1
    return run(self)
_planner.CoopWholeFunctionPlanner.run = counted_run
entry = mlir_compiler.compile_mlir
def counted_compile(*args, **kwargs):
    seen["kernel_compiles"] += 1
    return entry(*args, **kwargs)
mlir_compiler.compile_mlir = counted_compile
_planner._explain_recorders.append(lambda state, calls, bundle: seen["bundles"].append(bundle.cache))

import kernels
dtype = getattr(types, settings.get("dtype", "int32"))
kernel = getattr(kernels, settings["kernel"])
result = kernel.compile((types.Array(dtype, 1, "C"), types.Array(dtype, 1, "C")))
seen["cubin"] = result.metadata["cubin"][:4] == b"\\x7fELF"
seen["hits"] = sum(kernel.stats.cache_hits.values())
seen["misses"] = sum(kernel.stats.cache_misses.values())
seen["declared_block"] = getattr(kernel, "_coop_declared_block", None)
print(json.dumps(seen))
"""


@pytest.fixture
def project(tmp_path):
    """A directory holding the kernels (a 128-thread block declared) and the operator module."""
    (tmp_path / "kernels.py").write_text(KERNELS.replace("BLOCK", "128"))
    (tmp_path / "ops.py").write_text(OPS)
    return tmp_path


def compile_in_a_fresh_process(project: pathlib.Path, kernel: str, **settings) -> dict:
    environment = dict(os.environ, XDG_CACHE_HOME=str(project / "xdg"))
    environment["PYTHONPATH"] = os.pathsep.join([str(project), *sys.path])
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), json.dumps({"kernel": kernel, **settings})],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_kernel_without_coop_calls_keeps_the_disk_cache(project):
    first = compile_in_a_fresh_process(project, "plain")
    second = compile_in_a_fresh_process(project, "plain")
    assert (first["misses"], first["hits"]) == (1, 0)
    assert (second["misses"], second["hits"], second["kernel_compiles"]) == (0, 1, 0)
    assert second["cubin"]


def test_a_coop_kernel_with_a_declared_block_loads_without_compiler_planner_or_nvrtc(project):
    first = compile_in_a_fresh_process(project, "declared")
    assert (first["misses"], first["bundles"]) == (1, ["miss"]) and first["planner_runs"] >= 1
    second = compile_in_a_fresh_process(project, "declared")
    assert (second["hits"], second["misses"]) == (1, 0)
    assert (second["kernel_compiles"], second["planner_runs"], second["bundles"]) == (0, 0, [])
    assert second["cubin"] and second["declared_block"] == [128, 1, 1]


def test_a_moved_toolkit_with_the_same_identity_still_hits(project):
    """The fast check (file stamps) differs, the engine's identity does not: a hit."""
    compile_in_a_fresh_process(project, "declared")
    again = compile_in_a_fresh_process(project, "declared", patch={"toolkit_fingerprint": "moved"})
    assert (again["hits"], again["kernel_compiles"]) == (1, 0)


def edit(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


CHANGES = {
    "function": lambda project: edit(project / "kernels.py", "source[i] * 2", "source[i] * 3"),
    "block_shape": lambda project: edit(project / "kernels.py", "this_block(128)", "this_block((64, 2))"),
    "operator_code": lambda project: edit(project / "ops.py", "return a + b", "return b + a + 0"),
}


@pytest.mark.parametrize(
    ("what", "kernel", "settings"),
    [
        ("function", "plain", {}),
        ("argument_types", "declared", {"dtype": "float32"}),
        ("block_shape", "declared", {}),
        ("arch", "declared", {"cc": (8, 0)}),
        ("coop_version", "declared", {"patch": {"package_version": "99.0"}}),
        ("compiler_version", "plain", {"patch": {"compiler_version": "0.6.99"}}),
        ("provider_toolkit", "declared", {"patch": {"toolkit_identity": "another", "toolkit_fingerprint": "another"}}),
        ("operator_code", "declared", {}),
    ],
)
def test_changing_any_input_of_the_key_misses(project, what, kernel, settings):
    first = compile_in_a_fresh_process(project, kernel)
    assert first["misses"] == 1
    if what in CHANGES:
        CHANGES[what](project)
    changed = compile_in_a_fresh_process(project, kernel, **settings)
    assert (changed["hits"], changed["misses"]) == (0, 1), what
    assert changed["kernel_compiles"] >= 1
    assert changed["cubin"]


def test_a_kernel_specialized_on_its_launch_compiles_in_process():
    """Without a declared block the plan follows each launch's block: kernel.compile()
    cannot serve it (no launch); launches compile it once per block shape, cached on disk
    too (test_undeclared_block.py)."""
    from numba_cuda_mlir import cuda, types

    from cuda import coop
    from cuda.coop.numba_mlir._explain import _capability

    _capability()  # sm_90 without a device

    @cuda.jit
    def undeclared(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items)
        coop.store(block, destination, items)

    with pytest.raises(RuntimeError, match="launch"):
        undeclared.compile((types.Array(types.int32, 1, "C"),) * 2)
