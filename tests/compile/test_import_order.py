"""The qualified namespace imports in a fresh process whichever module comes first: importing
it loads the compiler, whose import runs cuda.coop's registration hook, which activates the
namespace while it is still being imported."""

import subprocess
import sys

import pytest

ORDERS = {
    "qualified_first": "import cuda.coop.numba_mlir as coop; from numba_cuda_mlir import cuda",
    "compiler_first": "from numba_cuda_mlir import cuda; import cuda.coop.numba_mlir as coop",
    "root_then_compiler": "from cuda import coop; from numba_cuda_mlir import cuda; import cuda.coop.numba_mlir",
}


@pytest.mark.parametrize("imports", ORDERS.values(), ids=ORDERS.keys())
def test_any_import_order_activates_the_backend(imports):
    code = imports + "; from cuda.coop.numba_mlir import _activation; assert _activation._active; print('active')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("active")
