"""cuda.coop's Numba-CUDA-MLIR backend, and the qualified namespace of the API.

Importing it activates the planner (after checking the compiler's version);
`coop.register("numba-cuda-mlir")` does the same. It holds every kernel name of
`cuda.coop` and what belongs to this compiler: its memory namespaces `local` and
`shared` (a fixed 1-D ``local.array`` is a payload wherever a `ThreadData` is).
`StatefulFunction` and the algorithm IntEnums are the root's, as the seed's
qualified namespace has them. `gpu_dataclass` passes a dataclass instance as one
kernel argument (the kernel names `gpu_dataclass_argument_handler` in its
`extensions=`)."""

# First: importing the compiler below runs cuda.coop's registration hook, which calls
# this module's activate() while the module is still being imported.
from ._activation import activate  # isort: skip

from numba_cuda_mlir.cuda import local, shared  # isort: skip

from .. import *
from .. import __all__ as _root_names
from ._bound_launch import BoundLaunch, bind_launch
from ._dataclass import gpu_dataclass, gpu_dataclass_argument_handler
from ._explain import explain as explain  # the backend's own, which coop.explain calls
from ._explain import owns

activate()

# The root's names follow it (all of them but `register`), so the two cannot drift apart.
__all__ = [  # noqa: PLE0604
    *(name for name in _root_names if name != "register"),
    "BoundLaunch",
    "activate",
    "bind_launch",
    "gpu_dataclass",
    "gpu_dataclass_argument_handler",
    "local",
    "owns",
    "shared",
]
