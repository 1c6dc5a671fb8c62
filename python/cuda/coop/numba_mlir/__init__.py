"""cuda.coop's Numba-CUDA-MLIR backend. Importing it activates the planner (after
checking the compiler's version); `coop.register("numba-cuda-mlir")` does the same."""

from ._activation import activate
from ._explain import explain, owns

activate()

__all__ = ["activate", "explain", "owns"]
