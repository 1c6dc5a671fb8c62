"""Stage 5, storage: where each call's scratch lives in the kernel's one shared
backing, and which calls need a barrier before or after them.

Implicit scratch (no temp_storage=) is one "shared" region used by every call;
each TempStorage is a region of its own, "shared" (its users overlap) or
"exclusive" (each user has its own slice), of the capacity it declares or of
what its users need. Barriers follow its auto_sync. With None (and for implicit
scratch) a user of a shared region needs a barrier before it exactly when another
user of that region (or itself, in a loop) may have run before it: that one may
still be reading the scratch; a user of an exclusive region needs one only in a
loop, where it reuses its own slice. With True every user is followed by a
barrier; with False the caller places them.

`storage.reserve(n, dtype, alignment=None)` gives the kernel a typed array of its own
in the TempStorage's region, before the primitives' scratch: no primitive's scratch
overlaps it, so what the kernel keeps there survives them. Indexing the TempStorage
itself (`storage[i]`, `storage[i] = v`) reads and writes the bytes of its whole
region as uint8, over whatever scratch its primitives keep there (CUB's TempStorage
is such raw memory too); the kernel orders those uses with its own barriers."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
from numba_cuda_mlir.numba_cuda.core import ir

from .._core.api.storage import TempStorage
from .._core.errors import InvalidArgumentError, UnsupportedOperationError
from . import _ir, _payloads
from ._find import Site
from ._ir import from_literal_unroll, literal_unroll_message
from ._location import context

IMPLICIT = ""  # the region of calls that name no TempStorage
SHARINGS = {"shared": "shared", "reuse": "shared", "exclusive": "exclusive"}  # "reuse": the earlier spelling


@dataclasses.dataclass
class Storage:
    site: Site
    sharing: str  # "shared" or "exclusive"
    size_in_bytes: int | None = None  # the capacity declared, or None: what the users need
    alignment: int | None = None  # the minimum alignment declared
    auto_sync: bool | None = None

    @property
    def name(self) -> str:
        return self.site.statement.target.name

    def attribute(self, name: str):
        """The value `storage.<name>` reads in the kernel (a compile-time constant)."""
        return getattr(self, name) if name in ATTRIBUTES else None


ATTRIBUTES = ("size_in_bytes", "alignment", "auto_sync", "sharing")
RESERVE = "reserve"  # the method that takes a typed array out of the region


@dataclasses.dataclass(frozen=True)
class Reservation:
    """`values = storage.reserve(count, dtype, alignment=...)`: `count` items of `dtype`."""

    statement: ir.Assign
    storage: str  # the TempStorage variable
    count: int
    dtype: str
    alignment: int
    overlaps: bool = False  # the bytes of the whole region (the TempStorage indexed), over its users' scratch

    @property
    def bytes(self) -> int:
        return self.count * np.dtype(self.dtype).itemsize


def _reserve_signature(num_elems, dtype, /, *, alignment=None):
    """storage.reserve(num_elems, dtype, alignment=None)"""


@dataclasses.dataclass
class Layout:
    bytes: int = 0
    alignment: int = 16
    # Keyed by id() of the _bundle.LinkedCall the layout was planned for.
    offsets: dict = dataclasses.field(default_factory=dict)  # id(linked) -> byte offset
    reserved: dict = dataclasses.field(default_factory=dict)  # id(Reservation.statement) -> (Reservation, offset)
    barriers: dict = dataclasses.field(default_factory=dict)  # id(linked) -> "block" | "warp", before the call
    barriers_after: dict = dataclasses.field(default_factory=dict)  # id(linked) -> "block" | "warp", after it


def _constant(state, bound, name, where_text):
    """The compile-time value of argument `name` (None where omitted)."""
    if name not in bound.arguments:
        return None
    var = bound.arguments[name]
    if from_literal_unroll(state.func_ir, var):
        raise UnsupportedOperationError(literal_unroll_message(where_text, name))
    found = _ir.definition(state.func_ir, var)
    if not isinstance(found, (ir.Const, ir.Global, ir.FreeVar)):
        raise InvalidArgumentError(
            f"{where_text}: argument '{name}' is not a compile-time constant; expected {_EXPECTED[name]}"
        )
    return _payloads.plain_constant(found.value)


_EXPECTED = {
    "size_in_bytes": "a positive integer (bytes) or None",
    "alignment": "a power of two (bytes) or None",
    "auto_sync": "True, False or None",
    "sharing": "'shared' or 'exclusive'",
}


def _refuse(where_text, name, value):
    raise InvalidArgumentError(
        f"{where_text}: argument '{name}' = {value!r} is not allowed; expected {_EXPECTED[name]} as a constant"
    )


def temp_storage(state, site: Site) -> Storage:
    where_text = context("TempStorage", state, site.statement.loc)
    try:
        bound = inspect.signature(TempStorage).bind(*site.call.args, **dict(site.call.kws))
    except TypeError as error:
        raise TypeError(f"{where_text}: {error}") from None
    size, alignment, auto_sync, sharing = (
        _constant(state, bound, name, where_text) for name in ("size_in_bytes", "alignment", "auto_sync", "sharing")
    )
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        _refuse(where_text, "size_in_bytes", size)
    if alignment is not None and (
        isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1 or alignment & (alignment - 1)
    ):
        _refuse(where_text, "alignment", alignment)
    if auto_sync is not None and not isinstance(auto_sync, bool):
        _refuse(where_text, "auto_sync", auto_sync)
    sharing = "shared" if sharing is None else sharing
    normalized = sharing.strip().lower().replace("-", "_") if isinstance(sharing, str) else None
    if normalized not in SHARINGS:
        _refuse(where_text, "sharing", sharing)
    return Storage(site, SHARINGS[normalized], size, alignment, auto_sync)


def _expressions(state, op: str):
    """(statement, expression) of every `x = <expression of kind op>` of the kernel."""
    for block in state.func_ir.blocks.values():
        for statement in list(block.body):
            value = getattr(statement, "value", None)
            if isinstance(statement, ir.Assign) and isinstance(value, ir.Expr) and value.op == op:
                yield statement, value


def _storage_of(state, storages, var):
    """The TempStorage `var` is (through aliases), or None."""
    made = _ir.definition(state.func_ir, var)
    return next((storage for storage in storages if storage.site.call is made), None)


def fold_attributes(state, storages) -> None:
    """`storage.size_in_bytes` (alignment, auto_sync, sharing) in the kernel reads the
    constant the TempStorage was made with (None where it was left out)."""
    for statement, value in _expressions(state, "getattr"):
        storage = _storage_of(state, storages, value.value)
        if storage is None or value.attr == RESERVE:  # reservations() reads the call a reserve makes
            continue
        if value.attr not in ATTRIBUTES:
            raise UnsupportedOperationError(
                f"{context('TempStorage', state, statement.loc)}: a TempStorage has no attribute {value.attr!r} in "
                f"a kernel; it has {', '.join(ATTRIBUTES)} and the method {RESERVE}(n, dtype, alignment=None)"
            )
        _ir.replace_value(state.func_ir, statement, ir.Const(storage.attribute(value.attr), statement.loc))


def reservations(state, storages) -> list[Reservation]:
    """Every `storage.reserve(...)` call of the kernel (through aliases and inlined helpers),
    and the byte view of every TempStorage the kernel indexes."""
    found = []
    for statement, value in _expressions(state, "call"):
        method = _ir.definition(state.func_ir, value.func)
        if isinstance(method, ir.Expr) and method.op == "getattr" and method.attr == RESERVE:
            storage = _storage_of(state, storages, method.value)
            if storage is not None:
                found.append(_reservation(state, statement, storage))
    return found + _byte_views(state, storages)


def _indexings(state, storages):
    """(statement, the node holding the indexed variable, that node's attribute naming it,
    storage) of every `storage[i]` and `storage[i] = v` of the kernel."""
    for block in state.func_ir.blocks.values():
        for statement in block.body:
            value = getattr(statement, "value", None)
            if isinstance(statement, (ir.SetItem, ir.StaticSetItem)):
                holder, attribute = statement, "target"
            elif isinstance(value, ir.Expr) and value.op in ("getitem", "static_getitem"):
                holder, attribute = value, "value"
            else:
                continue
            storage = _storage_of(state, storages, getattr(holder, attribute))
            if storage is not None:
                yield statement, holder, attribute, storage


def _byte_views(state, storages) -> list[Reservation]:
    """Indexing a TempStorage reads its region's bytes: the indexed variable becomes a uint8
    array of its capacity, made right after the TempStorage (the rewrite makes it)."""
    views = {}
    for statement, holder, attribute, storage in list(_indexings(state, storages)):
        if storage.name not in views:
            where_text = context("TempStorage", state, statement.loc)
            if storage.size_in_bytes is None:
                raise InvalidArgumentError(
                    f"{where_text}: indexing a TempStorage reads and writes its bytes, so it needs a capacity: "
                    "argument 'size_in_bytes' is None; expected TempStorage(n) with n bytes (or reserve a typed "
                    "array with storage.reserve(count, dtype))"
                )
            made = storage.site.statement
            block = next(block for block in state.func_ir.blocks.values() if made in block.body)
            view = _ir.new_var(block.scope, "storage_bytes", made.loc)
            placeholder = ir.Assign(ir.Const(0, made.loc), view, made.loc)  # the rewrite replaces it
            block.body.insert(block.body.index(made) + 1, placeholder)
            views[storage.name] = Reservation(
                placeholder, storage.name, storage.size_in_bytes, "uint8", storage.alignment or 1, overlaps=True
            )
        setattr(holder, attribute, views[storage.name].statement.target)
    return list(views.values())


def _reservation(state, statement, storage) -> Reservation:
    where_text = context(f"TempStorage.{RESERVE}", state, statement.loc)
    call = statement.value
    try:
        bound = inspect.signature(_reserve_signature).bind(*call.args, **dict(call.kws))
    except TypeError as error:
        raise TypeError(f"{where_text}: {error}") from None
    if storage.auto_sync:
        raise InvalidArgumentError(
            f"{where_text}: the TempStorage has auto_sync=True, whose barriers after every call would order the "
            "kernel's own uses of a reserved array too; reserve from a TempStorage with auto_sync None or False"
        )
    count = _payloads.compile_time_int(state, bound.arguments["num_elems"], where_text, "num_elems")
    if count < 1:
        raise InvalidArgumentError(f"{where_text}: argument 'num_elems' = {count} is not allowed; expected >= 1")
    dtype_value = _payloads.dtype_value(state, bound.arguments["dtype"])
    dtype = _payloads.explicit_dtype(dtype_value)
    if dtype is None or dtype == "bfloat16":
        raise InvalidArgumentError(
            f"{where_text}: argument 'dtype' = {dtype_value!r} is not allowed; expected a constant NumPy or Numba "
            "dtype: bool, int8-int64, uint8-uint64, float16, float32, float64, complex64 or complex128"
        )
    alignment = np.dtype(dtype).alignment
    if "alignment" in bound.arguments:
        alignment = _constant(state, bound, "alignment", where_text)
        if (
            isinstance(alignment, bool)
            or not isinstance(alignment, int)
            or alignment < 1
            or alignment & (alignment - 1)
        ):
            _refuse(where_text, "alignment", alignment)
        alignment = max(alignment, np.dtype(dtype).alignment)
    return Reservation(statement, storage.name, count, dtype, alignment)


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
    first_label, second_label = first.call.site.label, second.call.site.label
    if first_label == second_label and order[id(first)] < order[id(second)]:
        return True
    return second_label in reach[first_label]


def check_fits(state, linked, layout: Layout) -> None:
    """All the kernel's scratch must fit the target's shared memory per block: refused
    here, naming the numbers, instead of failing the launch."""
    from .. import _engine
    from .._core.errors import InvalidArgumentError

    arch = state.metadata["targetoptions"]["chip"]
    limit = _engine.max_shared_memory_per_block(arch)
    if layout.bytes <= limit:
        return
    users = sorted(
        (each for each in linked if each.provider.scratch_bytes_per_block),
        key=lambda each: -each.provider.scratch_bytes_per_block,
    )
    shown = ", ".join(
        f"coop.{each.call.facts.operation} ({each.call.facts.where}) {each.provider.scratch_bytes_per_block}"
        for each in users[:3]
    )
    first = users[0].call
    raise InvalidArgumentError(
        f"{context(first.facts.operation, state, first.site.statement.loc)}: the kernel's cooperative calls need "
        f"{layout.bytes} bytes of shared memory per block, more than {arch}'s limit of {limit}; largest: {shown} "
        "(bytes). Use fewer items per thread, a smaller block, or TempStorage(sharing='shared') to overlap them"
    )


def plan_layout(state, linked, storages, reserved=()) -> Layout:
    """The layout of the scratch of `linked` (_bundle.LinkedCall, in program order) and
    of the arrays `reserved` (Reservation) in their TempStorage's region, before it."""
    layout = Layout()
    by_name = {storage.name: storage for storage in storages}
    regions: dict[str, list] = {}
    for each in linked:
        regions.setdefault(each.call.temp_storage or IMPLICIT, []).append(each)
    for reservation in reserved:
        regions.setdefault(reservation.storage, [])
    order = {id(each): index for index, each in enumerate(linked)}
    reach = _reachable(state.func_ir)
    offset = 0
    for name, members in regions.items():
        storage = by_name.get(name)
        users = [each for each in members if each.provider.scratch_bytes_per_block > 0]
        own = [reservation for reservation in reserved if reservation.storage == name and not reservation.overlaps]
        views = [reservation for reservation in reserved if reservation.storage == name and reservation.overlaps]
        if not users and not own and not views:
            continue  # storage-free algorithms ignore the descriptor (and may run in some threads only)
        if storage is not None and storage.auto_sync:
            for each in users:
                layout.barriers_after[id(each)] = _scope(each)
        alignment = max(
            [storage.alignment or 1 if storage else 1]
            + [each.provider.scratch_alignment for each in users]
            + [reservation.alignment for reservation in own + views]
        )
        layout.alignment = max(layout.alignment, alignment)
        start = offset = _align(offset, alignment)
        for view in views:
            layout.reserved[id(view.statement)] = (view, start)
        for reservation in own:
            offset = _align(offset, reservation.alignment)
            layout.reserved[id(reservation.statement)] = (reservation, offset)
            offset += reservation.bytes
        if users:
            offset = _align(offset, max(each.provider.scratch_alignment for each in users))
        exclusive = storage is not None and storage.sharing == "exclusive"
        needed = _place(layout, users, offset, exclusive) - start
        if storage is not None and storage.size_in_bytes is not None:
            _check_capacity(state, storage, users, own, needed, exclusive)
            needed = storage.size_in_bytes
        if storage is None or storage.auto_sync is None:
            _reuse_barriers(layout, users, exclusive, reach, order)
        offset = start + needed
    layout.bytes = offset
    return layout


# A call that frees its own scratch ("own": a group of warps on its named barrier, a cluster on
# its barrier) needs no barrier before its next run; before another call sharing the scratch,
# which lays it out differently, only the whole block's barrier orders the two.
OWN = "own"


def _scope(linked) -> str:
    scope = linked.provider.reuse_barrier or ("block" if linked.call.facts.group.kind == "block" else "warp")
    return "block" if scope == OWN else scope


def _place(layout, users, offset, exclusive) -> int:
    """Gives each user its offset; returns the end of the region."""
    if not exclusive:
        for each in users:
            layout.offsets[id(each)] = offset
        return offset + max((each.provider.scratch_bytes_per_block for each in users), default=0)
    for each in users:
        offset = _align(offset, each.provider.scratch_alignment)
        layout.offsets[id(each)] = offset
        offset += each.provider.scratch_bytes_per_block
    return offset


def _reuse_barriers(layout, users, exclusive, reach, order) -> None:
    for each in users:
        own = each.provider.reuse_barrier == OWN
        if exclusive:
            if _may_run_before(each, each, reach, order) and not own:  # in a loop, its own slice is reused
                layout.barriers[id(each)] = each.provider.reuse_barrier
            continue
        earlier = [other for other in users if _may_run_before(other, each, reach, order)]
        if own and all(other is each for other in earlier):
            continue
        if earlier:
            scopes = {_scope(each), *(_scope(other) for other in earlier)}
            layout.barriers[id(each)] = "block" if "block" in scopes else "warp"


def _check_capacity(state, storage, users, own, needed, exclusive) -> None:
    """A declared capacity must hold what its users need: refused naming the call that
    needs most (shared) or the calls together (exclusive), or the reservations."""
    if needed <= storage.size_in_bytes:
        return
    if not users:
        reservation = own[-1]
        raise InvalidArgumentError(
            f"{context(f'TempStorage.{RESERVE}', state, reservation.statement.loc)}: the TempStorage has "
            f"size_in_bytes={storage.size_in_bytes}, but its {len(own)} reservation(s) need {needed} bytes; give "
            f"coop.TempStorage size_in_bytes={needed} or more, or None to size it for its users"
        )
    largest = max(users, key=lambda each: each.provider.scratch_bytes_per_block)
    named = (largest if not exclusive else users[-1]).call
    together = f", {needed} bytes for its {len(users)} users together" if exclusive and len(users) > 1 else ""
    if own:
        together += f" after its reservations' {sum(reservation.bytes for reservation in own)} bytes ({needed} in all)"
    facts = largest.call.facts
    raise InvalidArgumentError(
        f"{context(named.facts.operation, state, named.site.statement.loc)}: argument 'temp_storage' has "
        f"size_in_bytes={storage.size_in_bytes}, but coop.{facts.operation} ({facts.where}) needs "
        f"{largest.provider.scratch_bytes_per_block} bytes of scratch{together}; give coop.TempStorage "
        f"size_in_bytes={needed} or more, or None to size it for its users"
    )


def insert_trailing_barriers(state, linked, layout) -> None:
    """Puts the barrier after each call of an auto_sync=True TempStorage, before the
    rewrite turns the call into a provider call (which keeps what follows it)."""
    by_statement = {id(each.call.site.statement): each for each in linked if id(each) in layout.barriers_after}
    if not by_statement:
        return
    for block in state.func_ir.blocks.values():
        body = []
        for statement in block.body:
            body.append(statement)
            each = by_statement.get(id(statement))
            if each is not None:
                kind = layout.barriers_after[id(each)]
                body += _ir.call(block.scope, ("syncthreads",) if kind == "block" else ("syncwarp",), (), statement.loc)
        block.body = body
