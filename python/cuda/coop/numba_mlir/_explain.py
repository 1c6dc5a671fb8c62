"""coop.explain: the plans and generated C++ for one launch of a kernel, without
running it (and without a GPU: the compile targets sm_90 when no device answers)."""

from __future__ import annotations

import dataclasses

from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.core import errors as numba_errors
from numba_cuda_mlir.numba_cuda.cudadrv.error import CudaSupportError
from numba_cuda_mlir.numba_cuda.types.misc import literal

from .._core.errors import InvalidArgumentError
from . import _planner
from ._fork import check_and_note_compile
from ._launch import dim3

# Without a device, compiles target this compute capability.
DEFAULT_CAPABILITY = (9, 0)


@dataclasses.dataclass
class Explanation:
    kernel: str
    launch: dict
    arch: str
    plans: list  # _engine.Plan, one per cooperative call
    providers: list  # _engine.Provider, same order
    source: str  # the generated CUDA C++ bundle

    def __str__(self) -> str:
        parts = [f"kernel {self.kernel}, launch {self.launch}, {self.arch}"]
        for plan, provider in zip(self.plans, self.providers):
            parts.append(f"-- {provider.symbol}\n{plan.describe()}")
        parts.append("-- generated C++\n" + self.source)
        return "\n".join(parts)


def owns(kernel) -> bool:
    from numba_cuda_mlir.descriptor import MLIRDispatcher

    return isinstance(kernel, MLIRDispatcher)


def _triple(value, argument: str = "block") -> tuple:
    """(x, y, z) of a launch dimension given as an int or 1 to 3 ints, each >= 1."""
    shape = dim3(value)
    if shape is None:
        raise InvalidArgumentError(
            f"coop.explain: argument '{argument}' = {value!r} is not allowed; expected a positive integer or a tuple "
            "of 1 to 3 positive integers, e.g. 128 or (32, 4)"
        )
    return shape


def _capability() -> tuple:
    from numba_cuda_mlir import tools

    try:
        return tools.get_gpu_compute_capability(tuple)
    except CudaSupportError:  # no driver or no device: compile for the default target
        tools._cached_cc = DEFAULT_CAPABILITY
        return DEFAULT_CAPABILITY


def compile_for_launch(kernel, argtypes, grid, block, sharedmem=0, values=(), cluster=None):
    """Compiles `kernel` as a launch on grid x block (in clusters of `cluster` blocks) would, honouring the literal
    retries the planner asks for (values supply the literals), and returns the
    compile result (its metadata holds the cubin)."""
    from numba_cuda_mlir import mlir_compiler, mlir_optimization
    from numba_cuda_mlir.descriptor import mlir_target

    mlir_target.ensure_initialized()
    major, minor = _capability()
    shape = None if cluster is None else _triple(cluster, "cluster")
    launch = {"grid": _triple(grid, "grid"), "block": _triple(block), "sharedmem": sharedmem, "cluster": shape}
    options = dict(kernel.targetoptions, chip=f"sm_{major}{minor}", __launch_config__=launch)
    argtypes = list(argtypes)
    while True:
        try:
            result = mlir_compiler.compile_mlir(kernel.py_func, types.void, tuple(argtypes), targetoptions=options)
            break
        except numba_errors.ForceLiteralArg as retry:
            for position in retry.requested_args:
                argtypes[position] = literal(values[position])
    mlir_optimization.optimize(result)
    return result


def explain(kernel, /, *args, grid, block) -> Explanation:
    check_and_note_compile("coop.explain")
    _triple(grid, "grid"), _triple(block)  # checked before anything compiles
    argtypes = [kernel.typeof_pyval(value) for value in args]
    recorded = []
    recorder = lambda state, linked, bundle: recorded.append((linked, bundle))
    _planner._explain_recorders.append(recorder)
    try:
        compile_for_launch(kernel, argtypes, grid, block, values=args)
    finally:
        _planner._explain_recorders.remove(recorder)
    linked, bundle = recorded[-1] if recorded else ((), None)
    return Explanation(
        kernel=kernel.py_func.__qualname__,
        launch={"grid": _triple(grid, "grid"), "block": _triple(block)},
        arch=bundle.arch if bundle else "",
        plans=[each.plan for each in linked],
        providers=[each.provider for each in linked],
        source=bundle.source if bundle else "",
    )
