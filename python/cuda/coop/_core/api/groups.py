"""Group descriptors: compile-time values naming which threads cooperate."""

from __future__ import annotations

from ..markers import host_call_error, marker


class GroupDescriptor:
    """What `this_block()`, `this_warp()`, `this_thread()` and their `group_by`
    partitions stand for inside a kernel: the threads that cooperate in a call. It
    never exists at run time: the planner resolves it against the launch and
    removes it. Make it in the kernel (or in a device function inlined into it);
    it may not be returned, stored in an array or passed to a call that is not a
    cooperative primitive (`EscapingGroupDescriptorError`).

    Its members, in a kernel:

    - properties, compile-time constants: ``kind`` (``"thread"``, ``"warp"``,
      ``"threads_within_warp"``, ``"block"`` or ``"warps_within_block"``),
      ``static_size`` and ``group_thread_count`` (threads in one group),
      ``block_dim`` (the launch's block as ``(x, y, z)``), ``exhaustive``,
      ``is_static`` and ``is_current`` (always True);
    - `rank`, `count`, `rank_as`, `count_as`, `is_member`, `sync` and
      `sync_aligned`, below.

    Levels name a unit of the thread hierarchy: ``"thread"`` (alias
    ``"gpu_thread"``), ``"warp"``, ``"block"``, ``"grid"`` (trimmed, lowercased,
    ``-`` read as ``_``). For a level inside the group (a thread of a warp, a
    warp of a block) a query gives the caller's unit within its group; for the
    group's own level or one around it, the group's index in it (or how many
    such groups it holds): ``block.rank("grid")`` is the block's index in the
    grid. A partition (`group_by`) answers for its own units and its immediate
    parent only: a logical warp for ``"thread"`` and ``"warp"``, a group of
    warps for ``"thread"``, ``"warp"`` and ``"block"``. Ranks and counts are
    uint32, uint64 at the grid level.
    """

    def __new__(cls, *args, **kwargs):
        raise host_call_error(cls.__name__)

    def group_by(self, n: int, /, *, exhaustive: bool = True) -> GroupDescriptor:
        """A partition of this group into groups of `n` of its units.

        On `this_warp()` the units are lanes: logical warps of `n` consecutive
        lanes (kind ``"threads_within_warp"``), every collective of a warp
        runs on them (CUB's warp primitives with ``LOGICAL_WARP_THREADS = n``).
        On `this_block()` the units are whole warps: groups of ``32 * n``
        threads (kind ``"warps_within_block"``), for queries; collectives on
        them are refused at compile time (`UnsupportedOperationError`) until
        cuda.coop can plan them. A partition cannot be partitioned again.

        Args:
            n: a compile-time int from 1 to the parent's units (32 lanes, or the
                block's warps). Collectives of a logical warp need a power of
                two from 2 to 32.
            exhaustive: a compile-time bool. True (the default): `n` must
                divide the parent's units, so every thread is in a group.
                False: the last, incomplete group is dropped; its threads get
                ``is_member() == 0`` and must not take part in collectives.

        Returns:
            The group of the calling thread: lanes ``0..n-1``, ``n..2n-1``, and
            so on, of its warp; or warps ``0..n-1``, ``n..2n-1``, ... of its
            block (x-major thread rank).

        Raises:
            InvalidGroupError: `n` not a compile-time int, out of range, or not
                a divisor of the parent's units with ``exhaustive=True``; a
                block partition of a block that is not whole warps.

        Example:
            A sum over each group of 8 lanes::

                @cuda.jit
                def sums_of_eight(values, sums):
                    eight = coop.this_warp().group_by(8)
                    total = coop.sum(eight, values[cuda.threadIdx.x])
                    if eight.rank() == 0:
                        sums[cuda.threadIdx.x // 8] = total

                values = np.ones(64, dtype=np.int32)
                sums = np.zeros(8, dtype=np.int32)
                sums_of_eight[1, 64](values, sums)
        """
        raise host_call_error("group_by")

    def rank(self, level: str = "thread"):
        """The caller's rank at `level` (see the class's levels).

        Args:
            level: a compile-time level name, ``"thread"`` by default: the
                caller's rank within its group (its lane in a warp, its x-major
                thread rank in a block).

        Returns:
            A uint32 (uint64 at ``"grid"``); a constant where the launch fixes
            it (a warp's rank at its own level is 0).

        Example:
            The first lane of each warp writes::

                @cuda.jit
                def warp_leaders(flags):
                    warp = coop.this_warp()
                    if warp.rank() == 0:
                        flags[warp.rank("block")] = 1

                flags = np.zeros(4, dtype=np.int32)
                warp_leaders[1, 128](flags)
        """
        raise host_call_error("rank")

    def count(self, level: str = "thread"):
        """How many units of `level` the group holds (an inner level), or how
        many such groups the `level` holds (its own or an outer level).

        Args:
            level: a compile-time level name, ``"thread"`` by default (the
                group's size).

        Returns:
            A uint32 constant of the launch (uint64 and computed at run time at
            ``"grid"``); ``block.count("warp")`` counts a partial last warp.

        Example:
            ::

                @cuda.jit
                def shape(out):
                    block = coop.this_block()
                    out[0] = block.count()  # threads in the block: 96
                    out[1] = block.count("warp")  # 3

                out = np.zeros(2, dtype=np.uint32)
                shape[1, 96](out)
        """
        raise host_call_error("count")

    def rank_as(self, dtype=None, level: str = "thread"):
        """`rank` converted to `dtype`.

        Args:
            dtype: an integer dtype of 8 to 64 bits (``np.int32``, ``int`` for
                int64); None keeps uint32/uint64.
            level: as for `rank`.

        Returns:
            The rank as `dtype`.

        Example:
            ``lane = coop.this_warp().rank_as(np.int32)``
        """
        raise host_call_error("rank_as")

    def count_as(self, dtype=None, level: str = "thread"):
        """`count` converted to `dtype`.

        Args:
            dtype: an integer dtype of 8 to 64 bits; None keeps uint32/uint64.
            level: as for `count`.

        Returns:
            The count as `dtype`.

        Example:
            ``threads = coop.this_block().count_as(np.int64)``
        """
        raise host_call_error("count_as")

    def is_member(self):
        """Whether the caller belongs to a complete group of this partition.

        Returns:
            A uint8: 1 for every thread of a block, warp or thread group and of
            an exhaustive partition; 0 for the threads a ``exhaustive=False``
            partition drops. Guard a non-exhaustive partition's collectives and
            ranks with it.

        Example:
            ::

                @cuda.jit
                def members(flags):
                    groups = coop.this_warp().group_by(12, exhaustive=False)
                    flags[cuda.threadIdx.x] = groups.is_member()  # 0 for lanes 24-31

                flags = np.zeros(32, dtype=np.uint8)
                members[1, 32](flags)
        """
        raise host_call_error("is_member")

    def sync(self):
        """A barrier of the group: ``__syncthreads()`` for a block,
        ``__syncwarp()`` for a warp, ``__syncwarp(mask)`` with the lanes of the
        caller's logical warp, nothing for a thread. A group of warps has no
        barrier of its own (`UnsupportedOperationError`).

        Returns:
            None.

        Example:
            ``coop.this_block().sync()``
        """
        raise host_call_error("sync")

    def sync_aligned(self):
        """`sync` for callers in aligned, converged control flow (every member
        reaches the same barrier); lowered as `sync`.

        Returns:
            None.

        Example:
            ``coop.this_warp().sync_aligned()``
        """
        raise host_call_error("sync_aligned")


@marker("groups", implemented=True)
def this_thread() -> GroupDescriptor:
    """The calling thread alone: a group of kind ``"thread"`` and size 1.

    Its queries place the thread (``this_thread().rank("warp")`` is its lane,
    ``rank("block")`` its x-major rank in the block), and `reduce`/`sum` of one
    scalar on it return that scalar (nothing to combine). Other primitives,
    and reductions of a `ThreadData` on it, are refused at compile time
    (`UnsupportedOperationError`) in this cuda.coop.

    Returns:
        The thread's group descriptor.

    Example:
        The same kernel body for any group::

            @cuda.jit
            def own_value(values, out):
                me = coop.this_thread()
                out[cuda.threadIdx.x] = coop.sum(me, values[cuda.threadIdx.x]) + me.rank("block")

            values = np.ones(32, dtype=np.int32)
            out = np.zeros(32, dtype=np.int32)
            own_value[1, 32](values, out)
    """


@marker("groups", implemented=True)
def this_block(block_shape=None, /) -> GroupDescriptor:
    """The launching thread block, of any (x, y, z) shape; threads ranked x-major.

    The block's shape is taken from the launch (``kernel[grid, block]``): the
    kernel is compiled for it and bounded by it (its launch bounds), and a launch
    with another shape compiles another specialization.

    Args:
        block_shape: optional; an int or a tuple of 1 to 3 ints, compile-time
            constants, that declares the block the kernel is written for. A launch
            with another block is refused at compile time (`InvalidGroupError`),
            naming both.

    Returns:
        The block's group descriptor, for the primitives' first argument. The
        rank of thread ``(x, y, z)`` is ``x + y * X + z * X * Y``; tiles are
        spread over the threads in that order.

    Example:
        A 16 x 16 block, declared::

            @cuda.jit
            def tile_sum(image, sums):
                block = coop.this_block((16, 16))
                total = coop.sum(block, image[cuda.threadIdx.y, cuda.threadIdx.x])
                if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
                    sums[0] = total

            image = np.ones((16, 16), dtype=np.float32)
            sums = np.zeros(1, dtype=np.float32)
            tile_sum[1, (16, 16)](image, sums)
    """


@marker("groups", implemented=True)
def this_warp() -> GroupDescriptor:
    """The calling thread's warp: 32 lanes, CUB's warp primitives.

    Warp ``w`` of a block is the threads of x-major rank ``32 * w`` to ``32 * w +
    31``; the block must hold whole warps (its thread count a multiple of 32),
    else `InvalidGroupError`. Each warp of the block is its own group: a warp's
    collective needs every lane of that warp, not every thread of the block.
    `GroupDescriptor.group_by` divides it into logical warps.

    Returns:
        The warp's group descriptor.

    Example:
        One maximum per warp::

            @cuda.jit
            def warp_max(values, maxima):
                warp = coop.this_warp()
                largest = coop.reduce(warp, values[cuda.threadIdx.x], "max")
                if cuda.threadIdx.x % 32 == 0:
                    maxima[cuda.threadIdx.x // 32] = largest

            values = np.arange(128, dtype=np.int32)
            maxima = np.zeros(4, dtype=np.int32)
            warp_max[1, 128](values, maxima)
    """
