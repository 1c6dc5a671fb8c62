"""Stage 5, storage: where each call's scratch lives in the kernel's one shared
backing, and which calls need a barrier first.

Implicit scratch (no temp_storage=) is one "reuse" region shared by every call;
each TempStorage is a region of its own, "reuse" (consumers overlap) or
"exclusive" (each consumer has its own slice). A consumer of a reuse region needs
a barrier before it exactly when another consumer of that region (or itself, in a
loop) may have run before it: that one may still be reading the scratch. A consumer
of an exclusive region needs one only in a loop, where it reuses its own slice."""

from __future__ import annotations

import dataclasses
import inspect

from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.storage import TempStorage
from .._core.errors import InvalidArgumentError, UnsupportedOperationError
from ._find import Site
from ._ir import from_literal_unroll, literal_unroll_message, python_value
from ._location import context

IMPLICIT = ""  # the region of calls that name no TempStorage


@dataclasses.dataclass
class Storage:
    site: Site
    sharing: str

    @property
    def name(self) -> str:
        return self.site.statement.target.name


@dataclasses.dataclass
class Layout:
    bytes: int = 0
    alignment: int = 16
    offsets: dict = dataclasses.field(default_factory=dict)  # id(call) -> byte offset
    barriers: dict = dataclasses.field(default_factory=dict)  # id(call) -> "block" | "warp"


def temp_storage(state, site: Site) -> Storage:
    where_text = context("TempStorage", state, site.statement.loc)
    try:
        bound = inspect.signature(TempStorage).bind(*site.call.args, **dict(site.call.kws))
    except TypeError as error:
        raise TypeError(f"{where_text}: {error}") from None
    if "sharing" in bound.arguments and from_literal_unroll(state.func_ir, bound.arguments["sharing"]):
        raise UnsupportedOperationError(literal_unroll_message(where_text, "sharing"))
    sharing = python_value(state.func_ir, bound.arguments["sharing"]) if "sharing" in bound.arguments else "reuse"
    if sharing not in ("reuse", "exclusive"):
        raise InvalidArgumentError(
            f"{where_text}: argument 'sharing' = {sharing!r} is not allowed; expected 'reuse' or 'exclusive' "
            "as a constant"
        )
    return Storage(site, sharing)


def _align(offset: int, alignment: int) -> int:
    return (offset + alignment - 1) // alignment * alignment


def _reachable(func_ir) -> dict:
    """Block label -> labels reachable from it in one or more steps."""
    successors = {
        label: set(block.terminator.get_targets()) if isinstance(block.terminator, (ir.Jump, ir.Branch)) else set()
        for label, block in func_ir.blocks.items()
    }
    reach = {}
    for start, targets in successors.items():
        seen, frontier = set(), list(targets)
        while frontier:
            label = frontier.pop()
            if label not in seen:
                seen.add(label)
                frontier.extend(successors[label])
        reach[start] = seen
    return reach


def _may_run_before(first, second, reach, order) -> bool:
    if first.site.label == second.site.label and order[id(first)] < order[id(second)]:
        return True
    return second.site.label in reach[first.site.label]


def check_fits(state, calls, layout: Layout) -> None:
    """All the kernel's scratch must fit the target's shared memory per block: refused
    here, naming the numbers, instead of failing the launch."""
    from .. import _engine
    from .._core.errors import InvalidArgumentError

    arch = state.metadata["targetoptions"]["chip"]
    limit = _engine.max_shared_memory_per_block(arch)
    if layout.bytes <= limit:
        return
    users = sorted(
        (call for call in calls if call.provider.scratch_bytes_per_block),
        key=lambda call: -call.provider.scratch_bytes_per_block,
    )
    shown = ", ".join(
        f"coop.{call.facts.operation} ({call.facts.where}) {call.provider.scratch_bytes_per_block}"
        for call in users[:3]
    )
    raise InvalidArgumentError(
        f"{context(users[0].facts.operation, state, users[0].site.statement.loc)}: the kernel's cooperative calls need "
        f"{layout.bytes} bytes of shared memory per block, more than {arch}'s limit of {limit}; largest: {shown} "
        "(bytes). Use fewer items per thread, a smaller block, or TempStorage(sharing='reuse') to overlap them"
    )


def plan_layout(func_ir, calls, storages) -> Layout:
    layout = Layout()
    users = [call for call in calls if call.provider.scratch_bytes_per_block > 0]
    if not users:
        return layout
    sharing = {storage.name: storage.sharing for storage in storages}
    regions: dict[str, list] = {}
    for call in users:
        regions.setdefault(call.temp_storage or IMPLICIT, []).append(call)
    order = {id(call): index for index, call in enumerate(calls)}
    reach = _reachable(func_ir)
    offset = 0
    for name, members in regions.items():
        alignment = max(call.provider.scratch_alignment for call in members)
        layout.alignment = max(layout.alignment, alignment)
        offset = _align(offset, alignment)
        if sharing.get(name, "reuse") == "exclusive":
            for call in members:
                offset = _align(offset, call.provider.scratch_alignment)
                layout.offsets[id(call)] = offset
                offset += call.provider.scratch_bytes_per_block
                if _may_run_before(call, call, reach, order):  # in a loop, its own slice is reused
                    layout.barriers[id(call)] = call.provider.reuse_barrier
            continue
        for call in members:
            layout.offsets[id(call)] = offset
            earlier = [other for other in members if _may_run_before(other, call, reach, order)]
            if earlier:
                scopes = {call.provider.reuse_barrier, *(other.provider.reuse_barrier for other in earlier)}
                layout.barriers[id(call)] = "block" if "block" in scopes else "warp"
        offset += max(call.provider.scratch_bytes_per_block for call in members)
    layout.bytes = offset
    return layout
