"""Planner tests on real front-end IR need the kernel compiler."""

import pytest

pytest.importorskip("numba_cuda_mlir")
