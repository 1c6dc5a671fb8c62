# Typed stubs of the qualified namespace: the root's kernel names (cuda.coop's stub),
# and the compiler's memory namespaces (StatefulFunction and the algorithm IntEnums are the root's).
from types import ModuleType
from typing import Any

from .. import *

local: ModuleType  # numba_cuda_mlir.cuda.local: .array(shape, dtype, *, alignment=8)
shared: ModuleType  # numba_cuda_mlir.cuda.shared

def activate() -> None: ...
def owns(kernel: Any) -> bool: ...
