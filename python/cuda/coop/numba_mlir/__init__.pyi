# Typed stubs of the qualified namespace: the root's kernel names (cuda.coop's stub),
# the compiler's memory namespaces, bind_launch and gpu_dataclass (StatefulFunction and the algorithm IntEnums are the root's).
from types import ModuleType
from typing import Any, TypeVar

from .. import *

_T = TypeVar("_T")

local: ModuleType  # numba_cuda_mlir.cuda.local: .array(shape, dtype, *, alignment=8)
shared: ModuleType  # numba_cuda_mlir.cuda.shared

def activate() -> None: ...
def owns(kernel: Any) -> bool: ...

class BoundLaunch:
    argtypes: tuple[Any, ...]
    def __init__(self, kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> None: ...
    def __call__(self, *args: Any) -> None: ...

def bind_launch(kernel: Any, grid: Any, block: Any, *args: Any, sharedmem: int = 0, stream: int = 0) -> BoundLaunch: ...

class GpuDataclassArgumentHandler:
    def prepare_args(self, ty: Any, val: Any, stream: Any = None, retr: list[Any] | None = None) -> tuple[Any, Any]: ...

gpu_dataclass_argument_handler: GpuDataclassArgumentHandler

def gpu_dataclass(instance: _T, /, *, compute_temp_storage: bool = True) -> _T: ...
