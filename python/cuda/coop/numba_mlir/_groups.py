"""Stage 2, groups: resolve each group descriptor against the launch, and refuse
descriptors that escape into runtime code."""

from __future__ import annotations

from numba_cuda_mlir.numba_cuda.core import ir

from .. import _engine
from .._core.errors import EscapingGroupDescriptorError, InvalidGroupError, UnsupportedOperationError
from .._core.markers import marker_of
from . import _location
from ._find import GROUP_BY, Site
from ._ir import close_over_aliases, definition, definitions, from_literal_unroll, literal_unroll_message, python_value
from ._location import where


def dim3(value) -> tuple | None:
    """(x, y, z) of a shape given as a positive integer or 1 to 3 of them (the rest 1); None otherwise."""
    shape = (value,) if isinstance(value, int) else value
    if not isinstance(shape, (tuple, list)) or not 1 <= len(shape) <= 3:
        return None
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape):
        return None
    return tuple(shape) + (1,) * (3 - len(shape))


def launch_block(block, context: str) -> tuple:
    """The launch's block as (x, y, z): 1 to 3 positive integers."""
    shape = dim3(block)
    if shape is None:
        raise InvalidGroupError(
            f"{context}: the launch's block {block!r} is not allowed; expected 1 to 3 positive integers (x[, y[, z]])"
        )
    return shape


def resolve(state, var, block_shape, context: str):
    """The engine Group a descriptor variable stands for; where control flow joins,
    every path must give the same group."""
    func_ir = state.func_ir
    if from_literal_unroll(func_ir, var):
        raise UnsupportedOperationError(literal_unroll_message(context, "group"))
    groups = [_resolve_definition(state, found, block_shape, context) for found in definitions(func_ir, var)]
    if not groups:
        raise InvalidGroupError(f"{context}: argument 'group' is not a group descriptor")
    for other in groups[1:]:
        if other != groups[0]:
            raise InvalidGroupError(
                f"{context}: argument 'group' is {groups[0]!r} on one path and {other!r} on another; "
                "expected one group on every path"
            )
    return groups[0]


def _resolve_definition(state, found, block_shape, context: str):
    func_ir = state.func_ir
    if not (isinstance(found, ir.Expr) and found.op == "call"):
        raise InvalidGroupError(
            f"{context}: argument 'group' is not a group descriptor; expected coop.this_block(), "
            "coop.this_warp() or coop.this_warp().group_by(n)"
        )
    marker = marker_of(python_value(func_ir, found.func))
    if marker is not None and marker.name == "this_block":
        _check_declared_block(state, found, block_shape, context)
        return _engine.block(*block_shape)
    if marker is not None and marker.name == "this_warp":
        if found.args or found.kws:
            raise InvalidGroupError(f"{context}: coop.this_warp() takes no arguments; a warp is 32 lanes")
        return _engine.warp(block_shape, 32)
    method = definition(func_ir, found.func)
    if isinstance(method, ir.Expr) and method.op == "getattr" and method.attr == "group_by":
        receiver = resolve(state, method.value, block_shape, context)
        if receiver.kind != "warp" or receiver.width != 32:
            raise InvalidGroupError(f"{context}: group_by applies to coop.this_warp() only")
        if len(found.args) == 1 and from_literal_unroll(func_ir, found.args[0]):
            raise UnsupportedOperationError(literal_unroll_message(context, "n"))
        width = python_value(func_ir, found.args[0]) if len(found.args) == 1 else None
        if not isinstance(width, int):
            raise InvalidGroupError(
                f"{context}: argument 'n' of group_by is not a compile-time integer; expected a "
                "power of two from 2 to 32 written as a constant"
            )
        return _engine.warp(block_shape, width)
    raise InvalidGroupError(f"{context}: argument 'group' is not a group descriptor")


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
    group_vars = {
        site.statement.target.name: _constructor_text(site)
        for site in sites
        if site.marker.family == "groups" or site.marker is GROUP_BY
    }
    # Aliases of descriptors, and their group_by partitions, are descriptors.
    close_over_aliases(func_ir, group_vars, _descriptor_source)
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
