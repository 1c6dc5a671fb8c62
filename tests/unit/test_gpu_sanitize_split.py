"""scripts/gpu-sanitize.sh runs the runtime tests whose kernels trap on purpose outside the
sanitizers (`-m traps`) and every other one under them (`-m "not traps"`), so memcheck,
racecheck and synccheck each end at 0 errors. The split must be exactly the tests that take
the traps_in_child fixture: one missed would fill memcheck's count with expected traps again."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("numba_cuda_mlir")

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "tests" / "runtime"


def _collected(marker: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", marker, str(RUNTIME)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {line.split("[")[0] for line in done.stdout.splitlines() if "::" in line}


def _taking_the_trap_fixture() -> set[str]:
    found = set()
    for path in RUNTIME.glob("test_*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(arg.arg == "traps_in_child" for arg in node.args.args):
                found.add(f"{path.relative_to(ROOT)}::{node.name}")
    return found


def test_the_script_runs_the_trap_tests_outside_the_sanitizers():
    script = (ROOT / "scripts" / "gpu-sanitize.sh").read_text()
    assert '-m "not traps"' in script and "-m traps" in script
    subprocess.run(["bash", "-n", str(ROOT / "scripts" / "gpu-sanitize.sh")], check=True)


def test_the_traps_marker_is_exactly_the_trap_fixture():
    expected = _taking_the_trap_fixture()
    assert expected, "no runtime test takes traps_in_child"
    assert _collected("traps") == expected
    assert not _collected("not traps") & expected
