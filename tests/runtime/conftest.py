"""Runtime tests launch kernels: they need a GPU and numba-cuda-mlir."""

import pytest

numba_cuda_mlir = pytest.importorskip("numba_cuda_mlir")


def pytest_collection_modifyitems(config, items):
    if numba_cuda_mlir.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no GPU: runtime tests run on the GPU machine (scripts/gpu.sh)")
    for item in items:
        item.add_marker(skip)
