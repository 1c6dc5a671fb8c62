"""Stage 2, groups: resolve each group descriptor against the launch, and refuse
descriptors that escape into runtime code."""

from __future__ import annotations

import dataclasses
import functools

import numba_cuda_mlir
import numpy as np
from numba_cuda_mlir.numba_cuda.core import ir

from .. import _engine
from .._core.api.groups import GroupDescriptor
from .._core.errors import (
    EscapingGroupDescriptorError,
    InvalidArgumentError,
    InvalidGroupError,
    UnsupportedOperationError,
)
from .._core.markers import marker_of
from . import (
    _barriers,  # noqa: F401 (registered before any kernel compiles: the typing context then knows them)
    _ir,
    _location,
    _payloads,
)
from ._find import GROUP_BY, HOST_DESCRIPTOR, Site
from ._ir import close_over_aliases, definition, definitions, from_literal_unroll, literal_unroll_message, python_value
from ._launch import cluster_shape, dim3
from ._location import context, where

WARP = 32  # threads of a physical warp

# Levels a member query takes, by kind: an inner level counts the group's constituents, an
# outer one places the group in it (a logical warp's index in its warp, block, cluster or grid).
LEVELS = {
    "thread": ("thread", "warp", "block", "cluster", "grid"),
    "warp": ("thread", "warp", "block", "cluster", "grid"),
    "threads_within_warp": ("thread", "warp", "block", "cluster", "grid"),
    "block": ("thread", "warp", "block", "cluster", "grid"),
    "warps_within_block": ("thread", "warp", "block", "cluster", "grid"),
    "cluster": ("thread", "warp", "block", "cluster", "grid"),
    "grid": ("thread", "warp", "block", "cluster", "grid"),
}
MAX_CLUSTER_BLOCKS = _engine.max_cluster_blocks  # the portable cluster sizes
MAX_NAMED_BARRIER_GROUPS = _engine.max_warps_groups  # named barriers 1..15; 0 is __syncthreads'

LEVEL_ALIASES = {"gpu_thread": "thread"}


@dataclasses.dataclass(frozen=True)
class Descriptor:
    """What a group descriptor stands for in one launch: its kind, the launch's block,
    the threads of one group, and whether the partition covers its parent."""

    kind: str  # thread, warp, threads_within_warp, block, warps_within_block, cluster, grid
    block: tuple  # the launch's (x, y, z)
    size: int | None  # threads in one group; None for the grid (the launch's, not known when compiling)
    exhaustive: bool = True
    text: str = ""  # how messages name it: "coop.this_block().group_by(2)"
    cluster: tuple = (1, 1, 1)  # the launch's cluster (x, y, z), where a cluster kind or level asked for it

    @property
    def cluster_blocks(self) -> int:
        return self.cluster[0] * self.cluster[1] * self.cluster[2]

    @property
    def block_threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def unit(self) -> int:
        """Threads of one unit of the parent a partition is counted in (lanes or warps)."""
        return WARP if self.kind == "warps_within_block" else 1

    @property
    def parent_units(self) -> int:
        """Units in one instance of the parent (32 lanes of a warp, the block's warps)."""
        return WARP if self.kind == "threads_within_warp" else self.block_threads // WARP

    @property
    def groups_per_parent(self) -> int:
        return self.parent_units // (self.size // self.unit)


def describe(state, var, block_shape, context: str) -> Descriptor:
    """The descriptor a variable stands for; where control flow joins, every path must
    give the same one."""
    func_ir = state.func_ir
    if from_literal_unroll(func_ir, var):
        raise UnsupportedOperationError(literal_unroll_message(context, "group"))
    found = [_describe_definition(state, value, block_shape, context) for value in definitions(func_ir, var)]
    if not found:
        raise InvalidGroupError(f"{context}: argument 'group' is not a group descriptor")
    for other in found[1:]:
        if other != found[0]:
            raise InvalidGroupError(
                f"{context}: argument 'group' is {found[0].text} on one path and {other.text} on another; "
                "expected one group on every path"
            )
    return found[0]


def resolve(state, var, block_shape, context: str):
    """The engine Group a descriptor variable stands for: a block, a warp, a logical
    warp or a group of warps. Thread groups have no engine plan (a reduction on one is
    its value)."""
    found = describe(state, var, block_shape, context)
    if found.kind == "block":
        return _engine.block(*block_shape)
    if found.kind in ("warp", "threads_within_warp"):
        return _engine.warp(block_shape, found.size)
    if found.kind == "warps_within_block":
        return _engine.warps(block_shape, found.size // WARP)
    if found.kind == "cluster":
        if found.cluster_blocks == 1:
            return _engine.block(*block_shape)  # a launch without a cluster: each block is one
        require_clusters(state, found, context)
        return _engine.cluster(block_shape, found.cluster_blocks)
    if found.kind == "grid":
        raise UnsupportedOperationError(
            f"{context}: argument 'group' is coop.this_grid(); no collective runs on a grid: its blocks cannot wait "
            "for one another without a cooperative launch (and a workspace per launch), which cuda.coop does not "
            "make. Reduce per block (coop.this_block()), then combine the blocks' results in a second kernel"
        )
    raise UnsupportedOperationError(
        f"{context}: argument 'group' is {found.text} (kind {found.kind!r}), which this cuda.coop cannot plan this "
        "call for; its queries (rank, count, is_member, sync) work, and so does coop.reduce/coop.sum of a "
        "scalar on coop.this_thread()"
    )


def require_clusters(state, found: Descriptor, context: str) -> None:
    """A cluster of several blocks needs sm_90 and a portable size."""
    arch = state.metadata["targetoptions"]["chip"]
    if int(arch[3:]) < 90:
        raise UnsupportedOperationError(
            f"{context}: {found.text} is a cluster of {found.cluster_blocks} blocks {found.cluster}, which needs "
            f"sm_90 or later; this kernel compiles for {arch}. Launch without a cluster (each block is then a "
            "cluster of one) or run on a newer GPU"
        )
    if found.cluster_blocks > MAX_CLUSTER_BLOCKS:
        raise InvalidGroupError(
            f"{context}: {found.text} is launched as clusters of {found.cluster_blocks} blocks {found.cluster}; "
            f"expected 1 to {MAX_CLUSTER_BLOCKS} blocks per cluster, the portable cluster sizes"
        )


def _cluster_descriptor(state, block_shape: tuple, text: str) -> Descriptor:
    cluster = cluster_shape(state)
    threads = block_shape[0] * block_shape[1] * block_shape[2] * cluster[0] * cluster[1] * cluster[2]
    return Descriptor("cluster", block_shape, threads, True, text, cluster)


def _describe_definition(state, found, block_shape, context: str) -> Descriptor:
    func_ir = state.func_ir
    if isinstance(found, (ir.Global, ir.FreeVar)) and isinstance(found.value, GroupDescriptor):
        return _from_host(state, found.value, tuple(block_shape), context)
    if not (isinstance(found, ir.Expr) and found.op == "call"):
        raise InvalidGroupError(
            f"{context}: argument 'group' is not a group descriptor; expected coop.this_block(), "
            "coop.this_warp(), coop.this_thread() or a group_by(n) of one of them"
        )
    marker = marker_of(python_value(func_ir, found.func))
    block_shape = tuple(block_shape)
    if marker is not None and marker.name == "this_block":
        _check_declared_block(state, found, block_shape, context)
        return Descriptor("block", block_shape, _size_of("block", block_shape), True, "coop.this_block()")
    if marker is not None and marker.name in ("this_warp", "this_thread", "this_grid", "this_cluster"):
        if found.args or found.kws:
            raise InvalidGroupError(f"{context}: coop.{marker.name}() takes no arguments")
        kind = marker.name[5:]
        if kind == "cluster":
            return _cluster_descriptor(state, block_shape, "coop.this_cluster()")
        return Descriptor(kind, block_shape, _size_of(kind, block_shape), True, f"coop.{marker.name}()")
    method = definition(func_ir, found.func)
    if isinstance(method, ir.Expr) and method.op == "getattr" and method.attr == "group_by":
        receiver = describe(state, method.value, block_shape, context)
        return _partition(state, found, receiver, context)
    raise InvalidGroupError(f"{context}: argument 'group' is not a group descriptor")


def _from_host(state, value: GroupDescriptor, block_shape: tuple, context: str) -> Descriptor:
    """A descriptor made on the host (a kernel global), resolved against the launch."""
    if value.parent is not None:
        return _partition_of(
            _from_host(state, value.parent, block_shape, context), _units(value), value.exhaustive, context
        )
    if value.kind == "block" and value.block_dim is not None and tuple(value.block_dim) != block_shape:
        raise InvalidGroupError(
            f"{context}: {value!r} declares a block of {tuple(value.block_dim)}, but the kernel is launched with a "
            f"block of {block_shape}; launch it with the block it declares"
        )
    if value.kind == "cluster":
        return _cluster_descriptor(state, block_shape, repr(value))
    return Descriptor(value.kind, block_shape, _size_of(value.kind, block_shape), True, repr(value))


def _size_of(kind: str, block_shape: tuple) -> int | None:
    """Threads in one group of an unpartitioned kind; None for the grid (the launch's, not known when compiling)."""
    return {"block": block_shape[0] * block_shape[1] * block_shape[2], "warp": WARP, "thread": 1, "grid": None}[kind]


def _units(value: GroupDescriptor) -> int:
    return value.static_size if value.kind == "threads_within_warp" else value.static_size // WARP


def _partition(state, found, receiver: Descriptor, context: str) -> Descriptor:
    """`warp.group_by(n)`: logical warps of n lanes; `block.group_by(n)`: groups of n whole warps."""
    func_ir = state.func_ir
    if receiver.kind not in ("warp", "block"):
        raise UnsupportedOperationError(
            f"{context}: group_by of {receiver.text} is not supported; group_by applies to coop.this_warp() (lanes) "
            "or coop.this_block() (whole warps), once"
        )
    arguments = dict(found.kws)
    if len(found.args) > 1 or set(arguments) - {"exhaustive"}:
        raise InvalidGroupError(f"{context}: group_by takes one count and the keyword 'exhaustive'")
    if len(found.args) == 1 and from_literal_unroll(func_ir, found.args[0]):
        raise UnsupportedOperationError(literal_unroll_message(context, "n"))
    count = _payloads.argument_or_constant(state, found.args[0], context, "n") if found.args else None
    exhaustive = python_value(func_ir, arguments["exhaustive"]) if "exhaustive" in arguments else True
    return _partition_of(receiver, count, exhaustive, context)


def _partition_of(receiver: Descriptor, count, exhaustive, context: str) -> Descriptor:
    units, unit_name = (WARP, "lanes of a warp") if receiver.kind == "warp" else (None, "warps of the block")
    if receiver.kind == "block":
        if receiver.block_threads % WARP:
            raise InvalidGroupError(
                f"{context}: coop.this_block().group_by needs a block of whole warps; the block {receiver.block} "
                f"has {receiver.block_threads} threads, not a multiple of 32"
            )
        units = receiver.block_threads // WARP
    if isinstance(count, bool) or not isinstance(count, int):
        raise InvalidGroupError(
            f"{context}: argument 'n' of group_by is not a compile-time integer; expected a count of {unit_name} "
            f"from 1 to {units} written as a constant (for a warp, a power of two)"
        )
    if not isinstance(exhaustive, bool):
        raise InvalidGroupError(f"{context}: argument 'exhaustive' of group_by is not True or False as a constant")
    call = f"{receiver.text}.group_by({count}{'' if exhaustive else ', exhaustive=False'})"
    if not 1 <= count <= units or (exhaustive and units % count):
        divides = f"; exhaustive=True needs a divisor of {units} (a power of two for a warp)" if exhaustive else ""
        raise InvalidGroupError(
            f"{context}: argument 'n' of {call} = {count} is not allowed; expected 1 to {units} {unit_name}{divides}"
        )
    if receiver.kind == "warp":
        return Descriptor("threads_within_warp", receiver.block, count, exhaustive, call)
    return Descriptor("warps_within_block", receiver.block, count * WARP, exhaustive, call)


def _check_declared_block(state, found, block_shape, context: str) -> None:
    """`coop.this_block(128)` or `(32, 4)` declares the block the kernel is written for:
    a launch with another block is refused, naming both."""
    if found.kws or len(found.args) > 1:
        raise InvalidGroupError(f"{context}: coop.this_block takes one argument, the block shape it declares")
    if not found.args:
        return
    declared = python_value(state.func_ir, found.args[0])
    shape = dim3(declared)
    if shape is None:
        raise InvalidGroupError(
            f"{context}: argument 'block_shape' of coop.this_block = {declared!r} is not allowed; expected a "
            "compile-time integer or a tuple of 1 to 3 integers, e.g. 128 or (32, 4)"
        )
    if shape != tuple(block_shape):
        written = (declared,) if isinstance(declared, int) else tuple(declared)
        raise InvalidGroupError(
            f"{context}: coop.this_block({declared!r}) declares a block of {written}, but the kernel is launched "
            f"with a block of {tuple(block_shape)}; launch it with the block it declares"
        )


def _constructor_text(site: Site) -> str:
    """How a message names a descriptor held only by a compiler temporary."""
    name = site.statement.target.name
    if site.marker is HOST_DESCRIPTOR:
        return f"'{site.statement.value.name}'"
    if not name.startswith("$"):
        return f"'{name.split('.')[0]}'"
    return "coop.this_warp().group_by(n)" if site.marker is GROUP_BY else f"coop.{site.marker.name}()"


def _descriptor_source(value) -> str | None:
    """The variable a value aliases or takes a group_by partition of."""
    if isinstance(value, ir.Var):
        return value.name
    if isinstance(value, ir.Expr) and value.op == "getattr" and value.attr == "group_by":
        return value.value.name
    return None


def check_no_escape(state, sites: list[Site]) -> None:
    """Descriptors exist only at compile time: returning one, storing it or passing it
    to anything but a cooperative primitive has no meaning at run time."""
    func_ir = state.func_ir
    for site in sites:
        # A group taken from literal_unroll reaches the planner as a tuple of descriptors: say why that fails.
        primitive = site.marker.family not in ("groups", "storage") and site.call.args
        if primitive and from_literal_unroll(func_ir, site.call.args[0]):
            raise UnsupportedOperationError(
                literal_unroll_message(_location.context(site.marker.name, state, site.statement.loc), "group")
            )
    # Descriptor variable -> how messages name it (its constructor when the variable is a temporary).
    # Aliases of descriptors, and their group_by partitions, are descriptors.
    group_vars = descriptor_variables(state, sites)
    primitive_calls = {id(site.call) for site in sites if site.marker.family not in ("groups", "storage")}
    for block in func_ir.blocks.values():
        for statement in block.body:
            if isinstance(statement, ir.Del):
                continue
            if isinstance(statement, ir.Assign) and (
                statement.target.name in group_vars or id(statement.value) in primitive_calls
            ):
                continue  # a definition, an alias or group_by of a descriptor, or a primitive's group
            escaping = [var.name for var in statement.list_vars() if var.name in group_vars]
            if escaping:
                name = escaping[0].split(".")[0]
                name = group_vars[escaping[0]] if name.startswith("$") else f"'{name}'"
                raise EscapingGroupDescriptorError(
                    f"group descriptor {name} escapes ({where(state, statement.loc)}): a descriptor exists only at "
                    "compile time; pass it only as the group of cuda.coop primitives (not returned, stored or "
                    "passed to other functions)"
                )


# -- members of a descriptor in the kernel: compile-time properties and device queries

PROPERTIES = ("kind", "static_size", "group_thread_count", "block_dim", "is_static", "is_current", "exhaustive")
METHODS = ("rank", "count", "rank_as", "count_as", "sync", "sync_aligned", "is_member")


def _property(found: Descriptor, name: str):
    if name in ("static_size", "group_thread_count"):
        return found.size
    if name == "block_dim":
        return found.block
    if name in ("is_static", "is_current"):
        return True
    return getattr(found, name)


def descriptor_variables(state, sites) -> dict:
    """Descriptor variable -> how messages name it; aliases and group_by partitions included."""
    group_vars = {
        site.statement.target.name: _constructor_text(site)
        for site in sites
        if site.marker.family == "groups" or site.marker is GROUP_BY
    }
    close_over_aliases(state.func_ir, group_vars, _descriptor_source)
    return group_vars


def lower_members(state, sites, block_shape) -> None:
    """Replaces `group.<property>` by its constant and `group.<method>(...)` by the device
    query it stands for; the descriptor itself then appears only where primitives take it."""
    func_ir = state.func_ir
    group_vars = descriptor_variables(state, sites)
    methods = {}  # bound-method variable -> (descriptor variable, member name)
    for block in func_ir.blocks.values():
        for statement in block.body:
            value = getattr(statement, "value", None)
            if not (isinstance(statement, ir.Assign) and isinstance(value, ir.Expr) and value.op == "getattr"):
                continue
            if value.value.name not in group_vars or value.attr == "group_by":
                continue
            member = f"{_shown(value.value.name, group_vars)}.{value.attr}"
            if value.attr in PROPERTIES:
                found, _ = _member_of(state, value.value, member, block_shape, statement.loc)
                _ir.replace_value(func_ir, statement, ir.Const(_property(found, value.attr), statement.loc))
            elif value.attr in METHODS:
                methods[statement.target.name] = (value.value, value.attr)
            else:
                _, member_context = _member_of(state, value.value, member, block_shape, statement.loc)
                raise UnsupportedOperationError(
                    f"{member_context}: a group descriptor has no member {value.attr!r} in a kernel; it has the "
                    f"properties {', '.join(PROPERTIES)} and the methods {', '.join(METHODS)}"
                )
    if not methods:
        return
    lowered = set()
    for block in func_ir.blocks.values():
        body = []
        for statement in block.body:
            value = getattr(statement, "value", None)
            is_call = isinstance(statement, ir.Assign) and isinstance(value, ir.Expr) and value.op == "call"
            if is_call and value.func.name in methods:
                receiver, name = methods[value.func.name]
                member = f"{_shown(receiver.name, group_vars)}.{name}"
                found, member_context = _member_of(state, receiver, member, block_shape, statement.loc)
                body += _member_call(state, block.scope, statement, found, name, member_context)
                lowered.add(value.func.name)
                continue
            body.append(statement)
        block.body = body
    used = _ir.used_names(func_ir)
    for block in func_ir.blocks.values():  # the bound methods, now without users
        block.body = [
            statement
            for statement in block.body
            if not (
                isinstance(statement, ir.Assign)
                and statement.target.name in lowered
                and statement.target.name not in used
            )
        ]


def _shown(name: str, group_vars: dict) -> str:
    """The receiver as the user wrote it: their variable, or the constructor of an unnamed group."""
    return group_vars[name].strip("'") if name.startswith("$") else name.split(".")[0]


def _member_of(state, receiver, member: str, block_shape, loc) -> tuple:
    """The receiver's descriptor and how messages name the member access: as written, with
    the group's kind ("half.rank of a threads_within_warp group (kernel, file.py:12)"); the
    user's variable is not a module attribute, so no "coop." before it."""
    found = describe(state, receiver, block_shape, f"{member} ({where(state, loc)})")
    return found, f"{member} of a {found.kind} group ({where(state, loc)})"


def _level(state, call, position: int, found: Descriptor, name: str, where_text: str) -> str:
    """The `level` argument of rank/count (positional or keyword), normalized and checked."""
    keywords = dict(call.kws)
    var = keywords.get("level", call.args[position] if len(call.args) > position else None)
    level = "thread" if var is None else python_value(state.func_ir, var)
    normalized = level.strip().lower().replace("-", "_") if isinstance(level, str) else None
    normalized = LEVEL_ALIASES.get(normalized, normalized)
    if normalized not in LEVELS[found.kind]:
        raise InvalidGroupError(
            f"{where_text}: argument 'level' = {level!r} is not allowed for {found.text} (kind {found.kind!r}); "
            f"expected one of {', '.join(repr(level) for level in LEVELS[found.kind])} as a constant"
        )
    return normalized


def _dtype_argument(state, call, where_text: str):
    """The NumPy scalar type of rank_as/count_as's `dtype` (None: the query's own)."""
    keywords = dict(call.kws)
    var = keywords.get("dtype", call.args[0] if call.args else None)
    value = None if var is None else python_value(state.func_ir, var)
    if value is None:
        return None
    if value is int:
        return np.int64
    try:
        dtype = np.dtype(str(value) if not isinstance(value, type) else value)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"{where_text}: argument 'dtype' = {value!r} is not allowed; expected an integer dtype of 8 to 64 bits "
            "(np.int32, np.uint64, ...) as a constant"
        )
    return dtype.type


def _member_call(state, scope, statement, found: Descriptor, name: str, where_text: str) -> list:
    call, loc = statement.value, statement.loc
    if name in ("sync", "sync_aligned"):
        return _sync(state, scope, statement, found, where_text)
    if name == "is_member":
        if call.args or call.kws:
            raise InvalidArgumentError(f"{where_text}: is_member() takes no arguments")
        return _is_member(scope, statement, found)
    cast = _dtype_argument(state, call, where_text) if name.endswith("_as") else None
    level = _level(state, call, 1 if name.endswith("_as") else 0, found, name, where_text)
    if level == "cluster" and found.kind != "cluster":
        found = dataclasses.replace(found, cluster=cluster_shape(state))
    query = _rank if name.startswith("rank") else _count
    statements, result = query(scope, found, level, loc)
    if cast is not None:
        converted = _ir.new_var(scope, "converted", loc)
        statements += _global_call(scope, cast, (result,), converted, loc)
        result = converted
    return [*statements, ir.Assign(result, statement.target, loc)]


def _global_call(scope, function, arguments, target, loc) -> list:
    callee = _ir.new_var(scope, "query", loc)
    return [
        ir.Assign(ir.Global(getattr(function, "__name__", "query"), function, loc), callee, loc),
        ir.Assign(ir.Expr.call(callee, tuple(arguments), (), loc), target, loc),
    ]


def _query(scope, function, constants, loc):
    statements, arguments = [], []
    for value in constants:
        assignment, var = _ir.constant(scope, value, loc, "shape")
        statements.append(assignment)
        arguments.append(var)
    result = _ir.new_var(scope, "rank", loc)
    return statements + _global_call(scope, function, arguments, result, loc), result


def _constant_result(scope, value, loc):
    assignment, var = _ir.constant(scope, value, loc, "count")
    return [assignment], var


def _per_thread_unit(found: Descriptor, level: str) -> tuple:
    """(divisor, modulus) of the rank for `level`, from the thread's rank in its block."""
    inner = {
        ("thread", "thread"): (1, 1),
        ("thread", "warp"): (1, WARP),
        ("thread", "block"): (1, 0),
        ("warp", "thread"): (1, WARP),
        ("warp", "warp"): (WARP, 1),
        ("warp", "block"): (WARP, 0),
        ("threads_within_warp", "thread"): (1, found.size),
        ("threads_within_warp", "warp"): (found.size, WARP // found.size),
        ("threads_within_warp", "block"): (found.size, 0),
        ("block", "thread"): (1, 0),
        ("block", "warp"): (WARP, 0),
        ("block", "block"): (found.block_threads, 1),
        ("warps_within_block", "thread"): (1, found.size),
        ("warps_within_block", "warp"): (WARP, found.size // WARP),
        ("warps_within_block", "block"): (found.size, 0),
    }
    return inner[(found.kind, level)]


def _units_per_block(found: Descriptor, level: str) -> tuple:
    """(threads per unit, units per block) of `level` (thread, warp, block, or the partition
    `found` is), as a grid or a cluster counts them."""
    warps = -(-found.block_threads // WARP)
    if level in ("threads_within_warp", "warps_within_block"):  # a partition's groups, each block alike
        per_block = found.groups_per_parent * (warps if level == "threads_within_warp" else 1)
        return found.size, per_block
    return {"thread": (1, found.block_threads), "warp": (WARP, warps), "block": (found.block_threads, 1)}[level]


def _rank(scope, found: Descriptor, level: str, loc):
    from . import _group_queries

    block = found.block
    if "cluster" in (found.kind, level):  # the caller's unit in its cluster, or the cluster's own ranks
        if found.kind == level:
            return _constant_result(scope, np.uint32(0), loc)
        if "grid" in (found.kind, level):
            return _query(scope, _group_queries.cluster_in_grid, found.cluster, loc)
        unit = _units_per_block(found, level if found.kind == "cluster" else found.kind)
        return _query(scope, _group_queries.rank_in_cluster, (*block, *unit, *found.cluster), loc)
    if found.kind == "grid":  # the caller's unit in the grid, or the grid's own rank (0)
        if level == "grid":
            return _constant_result(scope, np.uint64(0), loc)
        return _query(scope, _group_queries.rank_in_grid, (*block, *_units_per_block(found, level)), loc)
    if level == "grid":  # the group's rank in the grid
        return _query(scope, _group_queries.rank_in_grid, (*block, *_units_per_block(found, found.kind)), loc)
    divisor, modulus = _per_thread_unit(found, level)
    if modulus == 1:
        return _constant_result(scope, np.uint32(0), loc)
    return _query(scope, _group_queries.rank_in_block, (*block, divisor, modulus), loc)


def _count(scope, found: Descriptor, level: str, loc):
    from . import _group_queries

    threads = found.block_threads
    if "cluster" in (found.kind, level):  # units of a cluster, or clusters of the grid
        if "grid" in (found.kind, level):
            return _query(scope, _group_queries.clusters_in_grid, (found.cluster_blocks,), loc)
        if found.kind == level:
            return _constant_result(scope, np.uint32(1), loc)
        unit = _units_per_block(found, level if found.kind == "cluster" else found.kind)
        return _constant_result(scope, np.uint32(unit[1] * found.cluster_blocks), loc)
    if found.kind == "grid":
        if level == "grid":
            return _constant_result(scope, np.uint64(1), loc)
        return _query(scope, _group_queries.count_in_grid, (_units_per_block(found, level)[1],), loc)
    if level == "grid":
        return _query(scope, _group_queries.count_in_grid, (_units_per_block(found, found.kind)[1],), loc)
    warps = -(-threads // WARP)  # a partial last warp counts
    counts = {
        "thread": {"thread": 1, "warp": WARP, "block": threads},
        "warp": {"thread": WARP, "warp": 1, "block": warps},
        "threads_within_warp": {
            "thread": found.size,
            "warp": found.groups_per_parent,
            "block": _units_per_block(found, found.kind)[1],
        },
        "block": {"thread": threads, "warp": warps, "block": 1},
        "warps_within_block": {"thread": found.size, "warp": found.size // WARP, "block": found.groups_per_parent},
    }
    return _constant_result(scope, np.uint32(counts[found.kind][level]), loc)


def _is_member(scope, statement, found: Descriptor) -> list:
    from . import _group_queries

    loc = statement.loc
    members = found.groups_per_parent * (found.size // found.unit) if not found.exhaustive else None
    if members is None or members == found.parent_units:
        statements, result = _constant_result(scope, np.uint8(1), loc)
    else:
        statements, result = _query(
            scope, _group_queries.member_of_partition, (*found.block, found.unit, found.parent_units, members), loc
        )
    return [*statements, ir.Assign(result, statement.target, loc)]


def _sync(state, scope, statement, found: Descriptor, where_text: str) -> list:
    from . import _group_queries

    loc = statement.loc
    if found.kind == "grid":
        raise UnsupportedOperationError(
            f"{where_text}: coop.this_grid() has no barrier: the blocks of a launch cannot wait for one another "
            "without a cooperative launch, which cuda.coop does not make; end the kernel and launch another"
        )
    if statement.value.args or statement.value.kws:
        raise InvalidArgumentError(f"{where_text}: sync() takes no arguments")
    done = [ir.Assign(ir.Const(None, loc), statement.target, loc)]
    if found.kind == "threads_within_warp":
        return _query(scope, _group_queries.sync_logical_warp, (found.size,), loc)[0] + done
    if found.kind == "warps_within_block" and found.size > WARP:
        groups = found.groups_per_parent
        if groups > MAX_NAMED_BARRIER_GROUPS:
            raise InvalidGroupError(
                f"{where_text}: {found.text} makes {groups} groups of {found.size // WARP} warps in the block "
                f"{found.block}; a group of several warps waits on a hardware named barrier of its own, and a block "
                f"has {MAX_NAMED_BARRIER_GROUPS} besides __syncthreads': group more warps per group"
            )
        return _query(scope, _group_queries.sync_warps, (*found.block, found.size, groups), loc)[0] + done
    kind = found.kind
    if kind == "warps_within_block":  # one warp per group
        kind = "warp"
    if kind == "cluster":
        if found.cluster_blocks == 1:
            kind = "block"  # a launch without a cluster: each block is one
        else:
            require_clusters(state, found, where_text)
    function = {
        "block": _group_queries.sync_block,
        "warp": _group_queries.sync_warp,
        "thread": _group_queries.no_sync,
        "cluster": _group_queries.sync_cluster,
    }
    result = _ir.new_var(scope, "synced", loc)
    return _global_call(scope, function[kind], (), result, loc) + done


@functools.cache
def _identity_of(operation: str) -> bool:
    return _engine.operation(operation)["identity_on_one_thread"]


def _identity_on_one_thread(site: Site) -> bool:
    """Whether the catalog says the call's result on one thread is its scalar payload."""
    marker = site.marker
    return marker.implemented and marker.family not in ("groups", "storage") and _identity_of(marker.name)


def lower_thread_reductions(state, sites, block_shape) -> list:
    """`coop.reduce`/`coop.sum` of one scalar on `coop.this_thread()` is that scalar: the
    call becomes the value, with no provider. Returns the sites left to plan."""
    func_ir = state.func_ir
    left = []
    for site in sites:
        if not _identity_on_one_thread(site) or len(site.call.args) < 2:
            left.append(site)
            continue
        where_text = context(site.marker.name, state, site.statement.loc)
        if describe(state, site.call.args[0], block_shape, where_text).kind != "thread":
            left.append(site)
            continue
        value = site.call.args[1]
        made = definition(func_ir, value)
        made_by = python_value(func_ir, made.func) if isinstance(made, ir.Expr) and made.op == "call" else None
        if made_by is not None and (marker_of(made_by) is not None or made_by is numba_cuda_mlir.cuda.local.array):
            raise UnsupportedOperationError(
                f"{where_text}: coop.{site.marker.name} of a payload on coop.this_thread() has no plan in this "
                "cuda.coop yet; reduce a scalar (the result is that scalar), or loop over the items"
            )
        _ir.replace_value(func_ir, site.statement, value)
    return left
