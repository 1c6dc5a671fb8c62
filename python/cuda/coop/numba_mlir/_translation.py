"""The rewrites a kernel with cooperative calls gets just before numba-cuda-mlir translates
its MLIR (LLVM dialect) to NVVM IR: its stack slots at the top of its entry block
(_stack_slots.py) and its array descriptors as the launcher passes them: offsets 0 and, in
a compile the dispatcher pins to its arrays' layouts, a C-contiguous array's strides from
its sizes (_array_arguments.py). The planner marks the compile (request, pin_layouts);
one wrapper of the compiler's translation applies them to a marked kernel and to nothing
else.

Contract: install() wraps the translation once and returns False, changing nothing,
where the compiler lacks the functions it wraps. Architectures from sm_100 on translate
through another path and keep the kernel as the compiler made it."""

from __future__ import annotations

from . import _array_arguments, _stack_slots

OPTION = "_coop_translation"  # in the kernel's targetoptions: the planner changed this kernel
# ((the kernel's mangled argument types, per argument: a C array), ...) of each compile pinned to
# its layouts. Keyed by signature: the dispatcher's compiles share its targetoptions.
CONTIGUOUS = "_coop_contiguous_arrays"

_installed = False
_fold_offsets = False  # the compiler's launcher passes offset 0 (found once, by install)


def request(state) -> None:
    """Marks the kernel being compiled for the rewrites."""
    state.metadata["targetoptions"][OPTION] = True


def pin_layouts(state) -> None:
    """Marks a compile that no launch with arrays of other layouts reuses (its cooperative
    calls read contiguous arrays as runs: _dispatch.check_reused_layouts refuses such a
    launch), so its C arrays' strides fold."""
    from numba_cuda_mlir import types
    from numba_cuda_mlir.numba_cuda import itanium_mangler

    options = state.metadata["targetoptions"]
    signature = itanium_mangler.mangle_args(state.args)
    flags = tuple(isinstance(argument, types.Array) and argument.layout == "C" for argument in state.args)
    options[CONTIGUOUS] = tuple(entry for entry in options.get(CONTIGUOUS, ()) if entry[0] != signature) + (
        (signature, flags),
    )


def contiguous_arrays(target_options, kernel_name: str) -> tuple:
    """The flags pin_layouts recorded for the compile of `kernel_name` (its mangled name ends
    in its argument types; the longest recorded signature it ends in), else ()."""
    found = [entry for entry in target_options.get(CONTIGUOUS, ()) if kernel_name.endswith(entry[0])]
    return max(found, key=lambda entry: len(entry[0]))[1] if found else ()


def rewrite(gpu_module, target_options=None) -> None:
    _stack_slots.hoist(gpu_module)
    if _fold_offsets:
        _array_arguments.fold(gpu_module, lambda name: contiguous_arrays(target_options or {}, name))


def _wrap_translation(translate):
    def translate_rewritten(module, target_options, *args, **kwargs):
        if target_options.get(OPTION):
            from numba_cuda_mlir import mlir_optimization

            rewrite(mlir_optimization._get_single_gpu_module(module), target_options)
        return translate(module, target_options, *args, **kwargs)

    translate_rewritten.__wrapped__ = translate
    return translate_rewritten


def install() -> bool:
    global _installed, _fold_offsets
    if _installed:
        return True
    from importlib.metadata import version

    from numba_cuda_mlir import mlir_optimization

    if not all(hasattr(mlir_optimization, name) for name in ("_call_llvm70_capi", "_get_single_gpu_module")):
        return False
    mlir_optimization._call_llvm70_capi = _wrap_translation(mlir_optimization._call_llvm70_capi)
    _fold_offsets = version("numba-cuda-mlir").startswith(_array_arguments.LAUNCHER_RELEASES)
    _installed = True
    return True
