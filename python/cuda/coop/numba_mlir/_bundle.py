"""Stage 4b, bundle: every planned call of the kernel compiled as one bundle (one NVRTC
call on a miss, none on a hit), each call's provider registered for the rewrite. The
engine logs the compile (CUDA_COOP_LOG=compile): it alone knows the cache outcome;
this side logs only which kernel's calls it compiles (log.compiling/compiled)."""

from __future__ import annotations

import dataclasses
import os

from numba_cuda_mlir.numba_cuda.cudadrv.linkable_code import LTOIR

from .._core import log
from .._engine_session import engine
from . import _provider_call
from ._facts import Call
from ._plan import engine_call

_links: dict[str, LTOIR] = {}  # one link object per bundle, so the linker sees it once


@dataclasses.dataclass(frozen=True)
class LinkedCall:
    """A call with its plan and the provider the bundle compiled for it."""

    call: Call
    plan: object  # _engine.Plan
    provider: object  # _engine.Provider


def bundle(state, planned) -> tuple[object, tuple[LinkedCall, ...]]:
    """The engine's Bundle and the calls linked to its providers, in the order given;
    (None, ()) for a kernel with no cooperative calls."""
    if not planned:
        return None, ()
    calls = [each.call for each in planned]
    functions = [_linked_functions(each) for each in planned]  # compiled now: needs the plans
    arch = state.metadata["targetoptions"]["chip"]
    kernel, file = state.func_id.func_qualname, os.path.basename(state.func_id.filename)
    operations = [f"coop.{call.facts.operation}" for call in calls]
    log.compiling(kernel, file, operations, arch)
    try:
        compiled = engine_call(engine().compile, [each.plan for each in planned], arch, calls=calls)
    except BaseException:
        log.compile_failed()
        raise
    log.compiled(kernel, file, operations, compiled.cache, compiled.compile_seconds)
    return compiled, _register_providers(compiled, planned, functions)


def _linked_functions(planned) -> tuple:
    """The link items of the Python functions the plan calls (its external functions),
    compiled now: which ones the provider needs is the plan's to say."""
    return tuple(planned.call.link_requests[function.symbol]() for function in planned.plan.external_functions)


def _register_providers(compiled, planned, functions) -> tuple[LinkedCall, ...]:
    """Registers each provider (its ABI and link items) for the provider calls the rewrite emits."""
    link = _links.setdefault(
        compiled.cache_key, LTOIR(compiled.ltoir, name=f"cuda_coop_{compiled.cache_key[:16]}.ltoir")
    )
    linked = []
    for each, provider, python_functions in zip(planned, compiled.providers, functions):
        operands = tuple(
            _provider_call.Operand(param.kind, param.value_dtype, param.dimension) for param in provider.abi
        )
        result = provider.result.value_dtype if provider.result is not None else None
        _provider_call.register(_provider_call.Provider(provider.symbol, operands, (link, *python_functions), result))
        linked.append(LinkedCall(each.call, each.plan, provider))
    return tuple(linked)
