"""Group descriptors: compile-time values naming which threads cooperate."""

from __future__ import annotations

from ..markers import host_call_error, marker


class GroupDescriptor:
    """What this_block() and this_warp() stand for inside a kernel. It never exists
    at run time: the planner resolves it against the launch and removes it."""

    def __new__(cls, *args, **kwargs):
        raise host_call_error(cls.__name__)

    def group_by(self, n: int, /) -> GroupDescriptor:
        """Logical warps of `n` consecutive lanes (a power of two, 1 < n <= 32)."""
        raise host_call_error("group_by")


@marker("groups", implemented=True)
def this_block(block_shape=None, /) -> GroupDescriptor:
    """The launching thread block, any (x, y, z) shape; threads ranked x-major.

    `block_shape` (an int or a tuple of 1 to 3 ints, a compile-time constant)
    declares the block the kernel is written for: a launch with another block is
    refused at compile time, naming both."""


@marker("groups", implemented=True)
def this_warp() -> GroupDescriptor:
    """The calling thread's physical warp (32 lanes); the block must hold whole warps."""
