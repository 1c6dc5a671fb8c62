"""Every example runs as a user runs it: without a GPU it plans, generates, compiles and
links its kernels (coop.explain) and says it did not launch; on the GPU machine
scripts/gpu-python.sh runs the same files and they check their results."""

import pathlib
import subprocess
import sys

import pytest
from numba_cuda_mlir import cuda

EXAMPLES = sorted((pathlib.Path(__file__).parents[2] / "examples").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_example_runs(example):
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]  # on a GPU the example checks its own results
    # Launching a kernel without a declared block: neither the compiler's note that a
    # launch-specialized compile skips its disk cache, nor a warning of cuda.coop's.
    assert "launch-config-specialized" not in done.stderr and "CoopWarning" not in done.stderr, done.stderr[-3000:]
    if not cuda.is_available():
        assert "not launched" in done.stdout
