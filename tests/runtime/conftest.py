"""Runtime tests launch kernels: they need a GPU and numba-cuda-mlir."""

import pathlib
import re
import subprocess
import sys

import pytest

numba_cuda_mlir = pytest.importorskip("numba_cuda_mlir")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "traps: launches a kernel that traps on purpose (through traps_in_child); "
        "scripts/gpu-sanitize.sh runs these outside the sanitizers, whose error counts they would fill",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "traps_in_child" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.traps)
    if numba_cuda_mlir.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no GPU: runtime tests run on the GPU machine (scripts/gpu.sh)")
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in item.path.parents:  # this hook sees the whole session's items
            item.add_marker(skip)


@pytest.fixture
def traps_in_child(request):
    """A trap poisons the CUDA context of the process that launched it (every later
    allocation fails), so a kernel expected to trap runs in a child process:
    `traps_in_child(launch)` calls the test module's top-level function `launch` there
    and checks that the launch failed."""

    def run(launch):
        module = pathlib.Path(request.module.__file__)
        code = (
            f"import sys; sys.path.insert(0, {str(module.parent)!r}); import {module.stem} as tests; "
            f"tests.{launch.__name__}(); from numba_cuda_mlir import cuda; cuda.synchronize()"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        assert done.returncode != 0, f"{launch.__name__} ran to completion; it should have trapped"
        assert re.search(r"(?i)illegal instruction|launch[ _]failed|trap", done.stderr), done.stderr[-3000:]

    return run
