# Typed stubs of the qualified namespace: the root's kernel names (cuda.coop's stub),
# the compiler's memory namespaces and bind_launch (StatefulFunction and the algorithm IntEnums are the root's).
from types import ModuleType
from typing import Any

from .. import *

local: ModuleType  # numba_cuda_mlir.cuda.local: .array(shape, dtype, *, alignment=8)
shared: ModuleType  # numba_cuda_mlir.cuda.shared

def activate() -> None: ...
def owns(kernel: Any) -> bool: ...

class BoundLaunch:
    argtypes: tuple[Any, ...]
    def __init__(self, kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> None: ...
    def __call__(self, *args: Any) -> None: ...

def bind_launch(kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> BoundLaunch: ...
