"""Runtime tests launch kernels: they need a GPU and numba-cuda-mlir."""

import pathlib

import pytest

numba_cuda_mlir = pytest.importorskip("numba_cuda_mlir")


def pytest_collection_modifyitems(config, items):
    if numba_cuda_mlir.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="no GPU: runtime tests run on the GPU machine (scripts/gpu.sh)")
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in item.path.parents:  # this hook sees the whole session's items
            item.add_marker(skip)
