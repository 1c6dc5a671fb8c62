"""coop.explain: the plans and generated C++ for one launch of a kernel, without
running it (and without a GPU: the compile targets sm_90 when no device answers)."""

from __future__ import annotations

import dataclasses

from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.core import errors as numba_errors
from numba_cuda_mlir.numba_cuda.cudadrv.error import CudaSupportError
from numba_cuda_mlir.numba_cuda.types.misc import literal

from .._core.errors import InvalidArgumentError
from .._default_target import DEFAULT_CAPABILITY
from . import _declared, _planner, _resources
from ._fork import check_and_note_compile
from ._launch import dim3


@dataclasses.dataclass
class Explanation:
    kernel: str
    launch: dict
    arch: str
    plans: list  # _engine.Plan, one per cooperative call
    providers: list  # _engine.Provider, same order
    source: str  # the generated CUDA C++ bundle
    resources: _resources.Resources | None = None  # of the kernel linked for `arch`

    def report(self, defines: bool = False) -> str:
        """The readable report; the bundle's runs of `#define` lines (configuration macros that
        keep unused CCCL headers out of the parse) are folded to one line unless `defines`."""
        parts = [f"kernel {self.kernel}, launch {self.launch}, {self.arch}"]
        if self.resources is not None:
            parts.append(_resources_line(self.resources, self.providers))
        for plan, provider in zip(self.plans, self.providers):
            parts.append(f"-- {provider.symbol}\n{plan.describe()}")
        parts.append("-- generated C++\n" + (self.source if defines else _fold_defines(self.source)))
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.report()


def _resources_line(found: _resources.Resources, providers) -> str:
    scratch = sum(provider.scratch_bytes_per_block for provider in providers)
    return (
        f"resources per thread: {found.registers} registers, {found.local_bytes} bytes of local memory; "
        f"per block: {found.shared_bytes} bytes of static shared memory ({scratch} of them the providers' scratch)"
    )


def _fold_defines(source: str) -> str:
    lines, run = [], 0
    for line in [*source.splitlines(), ""]:
        if line.startswith("#define "):
            run += 1
            continue
        if run:
            lines.append(f"// ({run} #define lines folded: explanation.report(defines=True) shows them)")
            run = 0
        lines.append(line)
    return "\n".join(lines[:-1]) + ("\n" if source.endswith("\n") else "")


def owns(kernel) -> bool:
    from numba_cuda_mlir.descriptor import MLIRDispatcher

    return isinstance(_configured(kernel)[0], MLIRDispatcher)


def _configured(kernel) -> tuple:
    """(the kernel, its launch configuration or None): `kernel[grid, block]` is a configured
    kernel, which the compiler keeps as a dispatcher and the launch it was given."""
    dispatcher = getattr(kernel, "_dispatcher", None)
    launch = getattr(kernel, "_available_launch_config", None)
    if dispatcher is not None and isinstance(launch, dict):
        return dispatcher, launch
    return kernel, None


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


def _launch(kernel, configured, grid, block, cluster) -> dict:
    """The launch to explain: the keywords given, else the configured kernel's, else a grid of
    one block and the block the kernel declares (`coop.this_block(128)`)."""
    taken = configured or {}
    grid = grid if grid is not None else taken.get("grid", 1)
    block = block if block is not None else taken.get("block") or _declared.block_of(kernel)
    cluster = cluster if cluster is not None else taken.get("cluster")
    if block is None:
        raise InvalidArgumentError(
            f"coop.explain: argument 'block' is missing; {kernel.py_func.__qualname__} declares no block "
            "(coop.this_block(128) would): pass block=, or a configured kernel, kernel[grid, block]"
        )
    launch = {"grid": _triple(grid, "grid"), "block": _triple(block)}
    if cluster is not None:
        launch["cluster"] = _triple(cluster, "cluster")
    return launch


def explain(kernel, /, *args, grid=None, block=None, cluster=None) -> Explanation:
    check_and_note_compile("coop.explain")
    kernel, configured = _configured(kernel)
    launch = _launch(kernel, configured, grid, block, cluster)  # checked before anything compiles
    argtypes = [kernel.typeof_pyval(value) for value in args]
    recorded = []
    recorder = lambda state, linked, bundle: recorded.append((linked, bundle))
    _planner._explain_recorders.append(recorder)
    try:
        result = compile_for_launch(
            kernel, argtypes, launch["grid"], launch["block"], values=args, cluster=launch.get("cluster")
        )
    finally:
        _planner._explain_recorders.remove(recorder)
    linked, bundle = recorded[-1] if recorded else ((), None)
    metadata = getattr(result, "metadata", {})
    found = None
    if metadata.get("cubin") and metadata.get("func_name"):
        found = _resources.of_kernel(metadata["cubin"], metadata["func_name"])
    return Explanation(
        kernel=kernel.py_func.__qualname__,
        launch=launch,
        arch=bundle.arch if bundle else "",
        plans=[each.plan for each in linked],
        providers=[each.provider for each in linked],
        source=bundle.source if bundle else "",
        resources=found,
    )
