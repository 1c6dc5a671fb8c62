"""The whole-function planner: cuda.coop's one hook into numba-cuda-mlir. It runs
after device helpers are inlined and before type inference, and reads as the
pipeline: find -> groups -> payloads -> facts -> plan -> bundle -> storage -> rewrite.
Each stage returns its result as a value (facts: Call, plan: PlannedCall, bundle:
LinkedCall) and the stages after it take the one they need."""

from __future__ import annotations

import warnings

from numba_cuda_mlir.extending import WholeFunctionPlanner

from .._core.errors import CoopWarning, UnsupportedOperationError
from . import (
    _bundle,
    _dataclass,
    _facts,
    _groups,
    _ir,
    _launch,
    _payloads,
    _plan,
    _prefix_callbacks,
    _rewrite,
    _selectors,
    _shared_pointers,
    _storage,
    _translation,
)
from ._divergence import warn_divergent_calls
from ._find import check_names, find_sites
from ._fork import check_and_note_compile
from ._linked_functions import user_function_being_compiled
from ._location import context, where
from ._stage_clock import StageClock
from ._types import TypeOracle


class CoopWholeFunctionPlanner(WholeFunctionPlanner):
    """Resolves groups, plans every cooperative call with the engine, compiles one
    bundle per kernel (one NVRTC call on a cache miss, none on a hit), and rewrites
    the calls into provider calls. Returns True when it changed the IR."""

    def run(self) -> bool:
        clock = StageClock()
        try:
            return self._pipeline(self.state, clock)
        finally:  # a run that ends early (a literal retry, an error) counts too
            for recorder in _stage_recorders:
                recorder(self.state, dict(clock.seconds))

    def _pipeline(self, state, clock) -> bool:
        check_and_note_compile(f"kernel '{state.func_id.func_qualname}'")
        if not self.is_device_function:
            _dataclass.check_kernel_arguments(state)
        with clock("find"):
            check_names(state)
            sites = find_sites(state.func_ir)
        if not sites:
            return False
        if self.is_device_function:
            _refuse_device_function(state, sites)
        with clock("groups"):
            # A kernel argument used as an extent restarts the compile with its value
            # (ForceLiteralArg): find that out before anything expensive runs.
            payloads = [_payloads.thread_data(state, site) for site in sites if site.marker.name == "ThreadData"]
            storages = [_storage.temp_storage(state, site) for site in sites if site.marker.name == "TempStorage"]
            _payloads.fold_attributes(state, payloads)
            _storage.fold_attributes(state, storages)
            reserved = _storage.reservations(state, storages)
            # The declared block (coop.this_block(128)), else the launch's: only then is the kernel launch-specialized.
            where_text = context(sites[0].marker.name, state, sites[0].statement.loc)
            block_shape = _launch.block_shape(state, sites, where_text)
            _groups.lower_members(state, sites, block_shape)
            sites = _groups.lower_thread_reductions(state, sites, block_shape)
            _groups.check_no_escape(state, sites)
            _selectors.normalize(state, sites)
            _bound_the_launch(state, block_shape)
            _shared_pointers.request(state)  # CUB's shared-memory addressing in 32 bits, as nvcc's
            _translation.request(state)  # stack slots first, array offsets as the launcher passes them
        with clock("facts"):
            calls = _analyze(state, sites, block_shape, payloads, storages, reserved)
            # what a launch with arrays of another layout must not reuse this compile for (_dispatch)
            record = state.metadata.setdefault(_launch.METADATA_KEY, {})
            record["reads_arrays_as_runs"] = any(call.reads_memory_as_runs for call in calls)
            if record["reads_arrays_as_runs"]:
                _translation.pin_layouts(state)  # no launch of other layouts reuses it: C strides fold
            _payloads.fold_attributes(state, payloads)  # the fresh payloads calls return, known now
        with clock("plan"):
            planned = _plan.plan(calls)
        with clock("bundle"):
            bundle, linked = _bundle.bundle(state, planned)
        with clock("record"):
            _explain_hook(state, linked, bundle)
        with clock("storage"):
            warn_divergent_calls(state, planned, block_shape)
            _warn_unused_results(state, calls)
            layout = _storage.plan_layout(state, linked, storages, reserved)
            _storage.check_fits(state, linked, layout)
            _storage.insert_trailing_barriers(state, linked, layout)
        with clock("rewrite"):
            removed = [
                site.statement
                for site in sites
                if site.marker.family in ("groups", "storage") and site.marker.name != "ThreadData"
            ]
            removed += _prefix_callback_constructors(state, calls)
            _rewrite.rewrite(state, linked, payloads, removed, layout)
        return True


def _refuse_device_function(state, sites) -> None:
    """Cooperative calls in a function compiled on its own: an operator's, or a helper that did not inline."""
    user_function = user_function_being_compiled()
    if user_function is not None:
        where_text, argument, name = user_function
        site = next((site for site in sites if _facts.is_primitive(site)), sites[0])
        raise UnsupportedOperationError(
            f"{where_text}: argument '{argument}' = {name} calls coop.{site.marker.name} "
            f"({where(state, site.statement.loc)}); a cooperative primitive cannot run inside an operator "
            "or a prefix_op: CUB calls those per item or per lane, inside its own collective. Compute the "
            "collective in the kernel and pass its result in"
        )
    raise UnsupportedOperationError(
        f"{context(sites[0].marker.name, state, sites[0].statement.loc)}: cooperative primitives need the "
        "launching kernel's group shape; this device function was compiled on its own (inline='never', "
        "recursion or an overload). Let it inline into the kernel (the default)"
    )


def _bound_the_launch(state, block_shape) -> None:
    """The kernel is specialized for this block, as CUB's kernels are by
    __launch_bounds__: ptxas then keeps registers within what a block of this size
    can run with (64 per thread at 1024 threads) instead of failing the launch.
    A bound the user gave is theirs to keep."""
    options = state.metadata["targetoptions"]  # this launch's own copy
    if options.get("launch_bounds") is None:
        options["launch_bounds"] = block_shape[0] * block_shape[1] * block_shape[2]


def _analyze(state, sites, block_shape, payloads, storages, reserved) -> tuple[_facts.Call, ...]:
    """CallFacts for every primitive, in program order (barrier placement depends on it)."""
    reservations = {id(each.statement): (each.count, each.dtype, None) for each in reserved}
    oracle = TypeOracle(state, reservations, _typed_thread_data(payloads))
    for site in sites:  # first: a call reading what one returns would report a missing payload instead
        if _facts.is_primitive(site):
            _facts.refuse_unimplemented(state, site)
    payloads.extend(_facts.result_payloads(state, sites, payloads, oracle, block_shape))
    primitives = [site for site in sites if _facts.is_primitive(site)]
    untyped = {id(payload) for payload in payloads if payload.dtype is None}
    # Loads and stores type their payloads from memory; calls typed by their payload come after.
    calls = [
        _facts.analyze(state, site, block_shape, payloads, oracle, storages)
        for site in primitives
        if not _facts.needs_a_typed_payload(site)
    ]
    for payload in payloads:
        if payload.dtype is None:
            _payloads.infer_from_writes(
                state, payload, oracle, context("ThreadData", state, payload.site.statement.loc)
            )
    if any(id(payload) in untyped and payload.dtype is not None for payload in payloads):
        # Values read from a ThreadData the first calls typed (`(items[0], items[1])` as a tuple
        # payload) have types only now.
        oracle = oracle.refined(reservations, _typed_thread_data(payloads, state, sites, oracle))
    calls += [
        _facts.analyze(state, site, block_shape, payloads, oracle, storages)
        for site in primitives
        if _facts.needs_a_typed_payload(site)
    ]
    calls.sort(key=lambda call: primitives.index(call.site))
    for payload in payloads:
        _facts.dtype_of(payload, context("ThreadData", state, payload.site.statement.loc))
    return tuple(calls)


def _typed_thread_data(payloads, state=None, sites=(), oracle=None) -> dict:
    """The ThreadData constructors whose dtype is known, standing in for the type pass as the
    local arrays the rewrite makes of them (the kernel compiler cannot type a ThreadData), and
    with `sites`, the calls returning a payload they filled (`items = coop.load(...)`)."""
    typed = {
        id(payload.site.statement): (payload.extent, payload.dtype, payload.element)
        for payload in payloads
        if payload.site is not None and not isinstance(payload, _payloads.Result) and payload.dtype is not None
    }
    for site in sites:
        filled = _payloads.filled_by(state, site.call) if _facts.is_primitive(site) else None
        payload = _payloads.array_payload(state, filled, payloads, oracle) if filled is not None else None
        if payload is not None and payload.dtype is not None:
            typed[id(site.statement)] = (payload.extent, payload.dtype, payload.element)
    return typed


def _warn_unused_results(state, calls) -> None:
    """A call that returns a fresh payload (exchange, shuffle) leaves its input as it was:
    dropping its result is almost always code written for an in-place API."""
    used = _ir.used_names(state.func_ir)
    for call in calls:
        results = _facts.parameters(call.facts.operation).results
        target = call.site.statement.target.name
        if results and target not in used:
            warnings.warn(
                f"{context(call.facts.operation, state, call.site.statement.loc)}: the result is not used; "
                f"coop.{call.facts.operation} returns a fresh payload and leaves its input unchanged "
                f"(write `out = coop.{call.facts.operation}(...)` and use `out`)",
                CoopWarning,
                stacklevel=2,
            )


def _prefix_callback_constructors(state, calls) -> list:
    """The statements making prefix_op objects, which exist only at compile time."""
    with_callbacks = [call for call in calls if call.prefix_callback is not None]
    uses = {(id(call.site.statement), call.prefix_argument.name) for call in with_callbacks}
    callbacks = [call.prefix_callback for call in with_callbacks]
    _prefix_callbacks.check_only_used_as_prefix_op(state, callbacks, uses)
    made = [callback.constructor for callback in callbacks if callback.constructor is not None]
    return list({id(constructor): constructor for constructor in made}.values())


_explain_recorders: list = []
# Each called as recorder(state, {stage: seconds}) after every run (the benchmark's breakdown of cuda.coop's share).
_stage_recorders: list = []


def _explain_hook(state, linked, bundle) -> None:
    """Hands each recorder (coop.explain, the disk cache, tests) the kernel's linked calls
    and its bundle, once per kernel that has cooperative calls."""
    if bundle is None:
        return
    for recorder in _explain_recorders:
        recorder(state, linked, bundle)
