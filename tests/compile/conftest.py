"""Kernel compiles with no GPU: a launch configuration is given explicitly and the
target is sm_90, as the planner would see on the H200."""

import pytest

pytest.importorskip("numba_cuda_mlir")


@pytest.fixture
def compiles(monkeypatch):
    """The kernel compiles that ran to the end (a disk cache hit runs none; the generic compile
    the first launch of a kernel tries stops in the planner when the plan needs the block)."""
    from numba_cuda_mlir import mlir_compiler

    counted = []
    entry = mlir_compiler.compile_mlir  # what a launch's compile and kernel.compile() both run

    def counted_entry(*args, **kwargs):
        result = entry(*args, **kwargs)
        counted.append(1)
        return result

    monkeypatch.setattr(mlir_compiler, "compile_mlir", counted_entry)
    return counted
