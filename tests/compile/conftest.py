"""Kernel compiles with no GPU: a launch configuration is given explicitly and the
target is sm_90, as the planner would see on the H200."""

import pytest

pytest.importorskip("numba_cuda_mlir")
