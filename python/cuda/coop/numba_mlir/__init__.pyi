# Typed stubs of the qualified namespace: the root's kernel names (cuda.coop's stub),
# the compiler's memory namespaces, StatefulFunction, the algorithm IntEnums and bind_launch.
from enum import IntEnum
from types import ModuleType
from typing import Any

from numpy.typing import DTypeLike

from .. import *

local: ModuleType  # numba_cuda_mlir.cuda.local: .array(shape, dtype, *, alignment=8)
shared: ModuleType  # numba_cuda_mlir.cuda.shared

class BlockLoadAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5

class BlockStoreAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5

class WarpLoadAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3

class WarpStoreAlgorithm(IntEnum):
    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3

class BlockScanAlgorithm(IntEnum):
    RAKING = 0
    RAKING_MEMOIZE = 1
    WARP_SCANS = 2
    WARP_SCAN = 2

class BlockReduceAlgorithm(IntEnum):
    RAKING_COMMUTATIVE_ONLY = 0
    RAKING = 1
    WARP_REDUCTIONS = 2

class BlockHistogramAlgorithm(IntEnum):
    SORT = 0
    ATOMIC = 1

class StatefulFunction:
    op: Any
    dtype: DTypeLike
    name: str | None
    def __init__(self, op: Any, dtype: DTypeLike, name: str | None = None) -> None: ...

def activate() -> None: ...
def owns(kernel: Any) -> bool: ...

class BoundLaunch:
    argtypes: tuple[Any, ...]
    def __init__(self, kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> None: ...
    def __call__(self, *args: Any) -> None: ...

def bind_launch(kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> BoundLaunch: ...
