"""32-bit shared-memory pointers for a kernel with cooperative calls, as nvcc compiles
CUDA C++.

nvcc's front end declares shared-memory pointers (address space 3) 32 bits wide in the
NVVM IR it emits; NVRTC and numba-cuda-mlir's NVVM translation leave them 64 bits wide.
nvJitLink's link takes the first input's data layout, the kernel's, for the whole
program, so CUB's shared-memory addressing inlined into the kernel is 64-bit: each
index is sign-extended before it is scaled, LLVM can no longer fold a tile's item
offsets into one base plus constants, and the addresses it hoists out of a radix
sort's digit loop each hold a register pair. BlockRadixSort<uint32, 256, 16> took 100
registers against its nvcc twin's 75 (two blocks per SM instead of three); with the
32-bit layout it takes 79.

numba-cuda-mlir's translation to NVVM IR (its LLVM 7 C API, for sm_90 and older)
takes the data layout as an argument and is handed none. A kernel the planner
changes is marked (request); its translation is then handed the compiler's layout
with 32-bit shared pointers. Other kernels compile as the compiler makes them.
Architectures from sm_100 on translate through another path and keep its layout.

Contract: request(state) marks the compile; install() wraps the compiler's
translation once and returns False, changing nothing, where the compiler lacks the
functions it wraps or is of a release whose default layout DATA_LAYOUT was not read
from (a layout that disagreed with the compiler's own on anything but address space 3
would lay its structs out differently from how it lowered them)."""

from __future__ import annotations

import threading

OPTION = "_coop_shared_pointers_32"  # in the kernel's targetoptions: the planner changed this kernel
# numba-cuda-mlir's LLVM 7 layout (libMLIRToLLVM70's default) with 32-bit address-space-3 pointers.
DATA_LAYOUT = (
    b"e-p:64:64:64-p3:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64"
    b"-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)

# The releases whose LLVM 7 default layout DATA_LAYOUT copies (0.5.4 run on the H200, 0.6.0 compiled).
LAYOUT_RELEASES = ("0.5.", "0.6.")

_translating = threading.local()  # .layout: the layout the translation in progress is handed
_installed = False


def request(state) -> None:
    """Marks the kernel being compiled: its translation gets 32-bit shared pointers."""
    state.metadata["targetoptions"][OPTION] = True


class _Translator:
    """The C API library, handing the translation in progress its layout where the caller gave none."""

    def __init__(self, library):
        self._library = library

    def __getattr__(self, name):
        return getattr(self._library, name)

    def llvm70_translate_gpu_module_from_op(self, operation, chip, layout, *rest):
        return self._library.llvm70_translate_gpu_module_from_op(operation, chip, layout or _translating.layout, *rest)


def _wrap_library(get_library):
    def library_with_layout():
        library = get_library()
        return _Translator(library) if getattr(_translating, "layout", None) else library

    library_with_layout.__wrapped__ = get_library
    return library_with_layout


def _wrap_translation(translate):
    def translate_marked(module, target_options, *args, **kwargs):
        if not target_options.get(OPTION):
            return translate(module, target_options, *args, **kwargs)
        _translating.layout = DATA_LAYOUT
        try:
            return translate(module, target_options, *args, **kwargs)
        finally:
            _translating.layout = None

    translate_marked.__wrapped__ = translate
    return translate_marked


def install() -> bool:
    global _installed
    if _installed:
        return True
    from importlib.metadata import version

    from numba_cuda_mlir import mlir_optimization

    if not version("numba-cuda-mlir").startswith(LAYOUT_RELEASES):
        return False
    if not all(hasattr(mlir_optimization, name) for name in ("_call_llvm70_capi", "_get_llvm70_capi")):
        return False
    mlir_optimization._call_llvm70_capi = _wrap_translation(mlir_optimization._call_llvm70_capi)
    mlir_optimization._get_llvm70_capi = _wrap_library(mlir_optimization._get_llvm70_capi)
    _installed = True
    return True
