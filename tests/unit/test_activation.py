"""When cuda.coop plugs its planner into numba-cuda-mlir. Import order matters, so
each scenario runs in a fresh interpreter and reports what it saw as JSON."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from cuda import coop
from cuda.coop.numba_mlir import _compat

# The helper inliner runs first (helpers taking a group inline before the planner reads the kernel).
PLANNERS = ["cuda.coop.numba_mlir._inline.CoopHelperInliner", "cuda.coop.numba_mlir._planner.CoopWholeFunctionPlanner"]

# Prepended to every scenario: `planners()` lists what numba-cuda-mlir will run.
PRELUDE = """
import json, sys

def planners():
    from numba_cuda_mlir._whole_function_planners import _planner_registry
    return [f"{p.__module__}.{p.__qualname__}" for p in _planner_registry._planners]
"""


def run_scenario(code, **environment):
    env = {k: v for k, v in os.environ.items() if k != "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION"}
    env.update(environment)
    script = PRELUDE + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_coop_after_the_compiler_registers_the_planner():
    seen = run_scenario("""
        import numba_cuda_mlir
        from cuda import coop
        print(json.dumps(planners()))
    """)
    assert seen == PLANNERS


def test_importing_coop_first_registers_once_the_compiler_is_imported():
    """The order isort gives (cuda before numba_cuda_mlir) works as well as the other."""
    seen = run_scenario("""
        from cuda import coop
        before = planners() if "numba_cuda_mlir" in sys.modules else "not imported"
        import numba_cuda_mlir
        after_import = planners()
        coop.register("numba-cuda-mlir")
        print(json.dumps({"before": before, "after_import": after_import, "after": planners()}))
    """)
    assert seen == {"before": "not imported", "after_import": PLANNERS, "after": PLANNERS}


def test_disabled_automatic_registration_waits_in_either_import_order():
    seen = run_scenario(
        """
        from cuda import coop
        import numba_cuda_mlir
        before = planners()
        coop.register("numba-cuda-mlir")
        print(json.dumps({"before": before, "after": planners()}))
        """,
        CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="true",
    )
    assert seen == {"before": [], "after": PLANNERS}


def test_automatic_registration_can_be_disabled():
    seen = run_scenario(
        """
        import numba_cuda_mlir
        from cuda import coop
        before = planners()
        coop.register("numba-cuda-mlir")
        print(json.dumps({"before": before, "after": planners()}))
        """,
        CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION="1",
    )
    assert seen == {"before": [], "after": PLANNERS}


def test_an_unsupported_compiler_version_is_refused_and_registers_nothing():
    seen = run_scenario("""
        import importlib.metadata, warnings
        installed = importlib.metadata.version
        importlib.metadata.version = lambda name: "0.7.1" if name == "numba-cuda-mlir" else installed(name)

        import numba_cuda_mlir
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from cuda import coop  # automatic registration warns instead of failing the import
        try:
            coop.register("numba-cuda-mlir")
            error = None
        except coop.IncompatibleCompilerError as refused:
            error = str(refused)
        print(json.dumps({"warnings": [str(w.message) for w in caught], "error": error, "planners": planners()}))
    """)
    assert seen["planners"] == []
    assert seen["error"] == "cuda.coop supports numba-cuda-mlir>=0.5,<0.7; numba-cuda-mlir 0.7.1 is installed"
    assert seen["warnings"] == [f"cuda.coop did not register with numba-cuda-mlir: {seen['error']}"]


def test_importing_coop_alone_loads_no_compiler():
    seen = run_scenario("""
        from cuda import coop
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "numba_cuda", "numba_cuda_mlir"))))
    """)
    assert seen == []


@pytest.mark.parametrize("version", ["0.4.9", "0.7.0", "1.5.0"])
def test_check_version_names_the_installed_and_supported_versions(version):
    with pytest.raises(coop.IncompatibleCompilerError) as refused:
        _compat.check_version(version)
    assert f"numba-cuda-mlir {version} is installed" in str(refused.value)
    assert "numba-cuda-mlir>=0.5,<0.7" in str(refused.value)


@pytest.mark.parametrize("version", ["0.5.0", "0.5.4", "0.5.10rc1", "0.6.0", "0.6.3"])
def test_check_version_accepts_the_supported_series(version):
    assert _compat.check_version(version) == version


def test_register_refuses_an_unknown_backend():
    with pytest.raises(coop.InvalidArgumentError, match="'numba' is not allowed; expected one of: numba-cuda-mlir"):
        coop.register("numba")
