"""The launch being compiled: the block every stage plans for (the one the kernel
declares with coop.this_block(shape), else the launch's) and its cluster. Below every
stage of the planner (it imports none of them): the stages read the launch here, and
_dispatch, which sits on top of them, reads it here too. Asking for the launch's own
block or cluster (require_launch_config) is what specializes a kernel on its launch;
a compile whose options carry a launch (LAUNCH_OPTION: _dispatch's dispatcher for one
block shape, coop.explain) plans for that one without asking."""

from __future__ import annotations

import contextlib
import threading

from .._core.errors import InvalidGroupError
from ._ir import python_value

METADATA_KEY = "cuda_coop"  # the planner's record in a compile result's metadata
LAUNCH_OPTION = "__launch_config__"  # the compiler's target option holding the launch a compile serves


class PlanPerBlock(Exception):
    """The planner needs the launch's block (or cluster) of a kernel that _dispatch compiles
    once per block shape: raised instead of specializing the kernel on its launch, while
    _dispatch tries the kernel's generic compile (planning_per_block), so that the
    compile moves to the kernel's dispatcher for that block shape."""


_per_block = threading.local()  # .function: the kernel whose generic compile _dispatch is trying


@contextlib.contextmanager
def planning_per_block(function):
    """While this runs, a compile of `function` that needs its launch raises PlanPerBlock."""
    previous = getattr(_per_block, "function", None)
    _per_block.function = function
    try:
        yield
    finally:
        _per_block.function = previous


def _launch_of(state) -> dict:
    """The launch the planner plans for: the one the compile's options carry, else the
    launch's own (the compiler then specializes the kernel on it), unless _dispatch is
    trying this kernel's generic compile (PlanPerBlock)."""
    from numba_cuda_mlir.extending import require_launch_config

    options = state.metadata.get("targetoptions", {})
    if options.get(LAUNCH_OPTION) is None and getattr(_per_block, "function", None) is state.func_id.func:
        raise PlanPerBlock(state.func_id.func_qualname)
    return require_launch_config(state)


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


def declared_block(state, sites):
    """The block `coop.this_block(shape)` declares in this kernel, or None (the
    first declaring call's; _groups checks the others against it)."""
    for site in sites:
        if site.marker.name == "this_block" and len(site.call.args) == 1 and not site.call.kws:
            shape = dim3(python_value(state.func_ir, site.call.args[0]))
            if shape is not None:
                return shape
    return None


def available_launch(state):
    """The launch this compile serves, without asking to be specialized on it: None
    for a compile that is not a launch (kernel.compile, coop.explain without one)."""
    options = state.metadata.get("targetoptions", {})
    if options.get(LAUNCH_OPTION) is not None:
        return options[LAUNCH_OPTION]
    tracker = state.metadata.get("launch_config_tracker")
    return getattr(tracker, "_available_launch_config", None)


def block_shape(state, sites, context: str) -> tuple:
    """The block the planner plans for: the declared one (the kernel is then not
    specialized on its launch), or the launch's."""
    declared = declared_block(state, sites)
    if declared is None:
        return launch_block(_launch_of(state)["block"], context)
    state.metadata.setdefault(METADATA_KEY, {})["declared_block"] = declared
    launch = available_launch(state)
    launched = dim3(launch["block"]) if launch is not None else None
    if launched is not None and launched != declared:
        return launched  # _groups refuses the declaration at its call, naming both blocks
    return declared


def cluster_shape(state) -> tuple:
    """The launch's thread block cluster as (x, y, z); (1, 1, 1) for a launch without one,
    which runs each block as a cluster of one. Asking specializes the kernel on its launch."""
    cluster = _launch_of(state).get("cluster")
    return (1, 1, 1) if cluster is None else tuple(cluster) + (1,) * (3 - len(cluster))


def check_launch(kernel: str, declared: tuple, block) -> None:
    """Refuses a launch whose block is not the one the kernel declares."""
    launched = dim3(block)
    if launched is not None and launched != tuple(declared):
        shape = declared[: max(i + 1 for i, d in enumerate(declared) if d != 1 or i == 0)]
        raise InvalidGroupError(
            f"kernel {kernel} declares coop.this_block({shape[0] if len(shape) == 1 else shape}), a block of "
            f"{tuple(declared)}, but is launched with a block of {launched}; launch it with the block it declares, "
            "or write coop.this_block() to compile it for each launch's block"
        )
