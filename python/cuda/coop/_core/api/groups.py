"""Group descriptors: compile-time values naming which threads cooperate."""

from __future__ import annotations

from ..markers import host_call_error, marker


class GroupDescriptor:
    """What `this_block()`, `this_warp()`, `this_thread()` and their `group_by`
    partitions stand for inside a kernel: the threads that cooperate in a call. It
    never exists at run time: the planner resolves it against the launch and
    removes it. Make it in the kernel (or in a device function inlined into it),
    or at module level, where the factories return a plain, immutable value a
    kernel uses as a global (equal descriptors compare equal); in a kernel it may
    not be returned, stored in an array or passed to a call that is not a
    cooperative primitive (`EscapingGroupDescriptorError`). On the host its
    properties read what is known without a launch (a block's size is not) and
    its methods raise `CoopCompilerContextRequiredError`.

    Its members, in a kernel:

    - properties, compile-time constants: ``kind`` (``"thread"``, ``"warp"``,
      ``"threads_within_warp"``, ``"block"``, ``"warps_within_block"``,
      ``"cluster"`` or ``"grid"``),
      ``static_size`` and ``group_thread_count`` (threads in one group),
      ``block_dim`` (the launch's block as ``(x, y, z)``), ``exhaustive``,
      ``is_static`` and ``is_current`` (always True);
    - `rank`, `count`, `rank_as`, `count_as`, `is_member`, `sync` and
      `sync_aligned`, below.

    Levels name a unit of the thread hierarchy: ``"thread"`` (alias
    ``"gpu_thread"``), ``"warp"``, ``"block"``, ``"cluster"``, ``"grid"``
    (trimmed, lowercased, ``-`` read as ``_``). For a level inside the group (a thread of a warp, a
    warp of a block) a query gives the caller's unit within its group; for the
    group's own level or one around it, the group's index in it (or how many
    such groups it holds): ``block.rank("grid")`` is the block's index in the
    grid. A partition (`group_by`) answers at every level too:
    ``coop.this_warp().group_by(16).rank("block")`` is the logical warp's index
    in the block (``threadIdx.x // 16`` in a 1-D block), ``.rank("grid")`` its
    index in the grid and ``.count("block")`` how many the block holds. A launch without a
    cluster (``kernel[grid, block]``) runs each block as a cluster of one.
    Ranks and counts are uint32, uint64 at the grid level.
    """

    __slots__ = ("_block", "_exhaustive", "_kind", "_parent", "_size")

    def __new__(cls, *args, **kwargs):
        raise host_call_error(cls.__name__)

    @classmethod
    def _make(cls, kind, size=None, block=None, exhaustive=True, parent=None) -> GroupDescriptor:
        descriptor = object.__new__(cls)
        values = {"_kind": kind, "_size": size, "_block": block, "_exhaustive": exhaustive, "_parent": parent}
        for name, value in values.items():
            object.__setattr__(descriptor, name, value)
        return descriptor

    def __setattr__(self, name, value):
        raise AttributeError(f"a group descriptor is immutable; {name!r} cannot be set")

    def _identity(self) -> tuple:
        return (self._kind, self._size, self._block, self._exhaustive, self._parent)

    def __eq__(self, other) -> bool:
        return isinstance(other, GroupDescriptor) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        if self._parent is None:
            shape = "" if self._kind != "block" or self._block is None else repr(self._block)
            return f"coop.this_{self._kind}({shape})"
        units = self._size if self._kind == "threads_within_warp" else self._size // 32
        flag = "" if self._exhaustive else ", exhaustive=False"
        return f"{self._parent!r}.group_by({units}{flag})"

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def static_size(self) -> int | None:
        return self._size

    @property
    def group_thread_count(self) -> int:
        if self._size is None:
            raise ValueError(f"{self!r} has no size before a launch gives the block")
        return self._size

    @property
    def block_dim(self) -> tuple | None:
        return self._block

    @property
    def exhaustive(self) -> bool:
        return self._exhaustive

    @property
    def parent(self) -> GroupDescriptor | None:
        return self._parent

    @property
    def is_static(self) -> bool:
        return self._size is not None

    def group_by(self, n: int, /, *, exhaustive: bool = True) -> GroupDescriptor:
        """A partition of this group into groups of `n` of its units.

        On `this_warp()` the units are lanes: logical warps of `n` consecutive
        lanes (kind ``"threads_within_warp"``), every collective of a warp
        runs on them (CUB's warp primitives with ``LOGICAL_WARP_THREADS = n``).
        On `this_block()` the units are whole warps: groups of ``32 * n``
        consecutive threads (kind ``"warps_within_block"``), for queries,
        `sync` and `reduce`/`sum` (each group waits on a named barrier of its own, so
        sibling groups may take other paths; a block holds at most 15 groups
        of more than one warp). Threads left over by ``exhaustive=False`` are
        in no group and read 0 from a reduction. A partition cannot be
        partitioned again.

        Args:
            n: a compile-time int from 1 to the parent's units (32 lanes, or the
                block's warps). Collectives of a logical warp need a power of
                two from 1 to 32 (a width of 1: every thread alone).
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
        if self._kind not in ("warp", "block") or self._parent is not None:
            raise NotImplementedError(f"group_by of {self!r}: group_by applies to this_warp() or this_block(), once")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1 or (self._kind == "warp" and n > 32):
            raise ValueError(f"{self!r}.group_by: n = {n!r}; expected a positive int (at most 32 lanes of a warp)")
        if not isinstance(exhaustive, bool):
            raise TypeError(f"{self!r}.group_by: exhaustive = {exhaustive!r}; expected True or False")
        if self._kind == "warp":
            if exhaustive and 32 % n:
                raise ValueError(f"{self!r}.group_by({n}): exhaustive partitions of a warp need a divisor of 32")
            return GroupDescriptor._make("threads_within_warp", n, None, exhaustive, self)
        return GroupDescriptor._make("warps_within_block", 32 * n, self._block, exhaustive, self)

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
        caller's logical warp, a named barrier of its own (``bar.sync``
        counting the group's threads) for a group of several warps, the
        cluster's barrier (with release and acquire of shared memory across
        its blocks) for a cluster, nothing for a thread. Threads a
        non-exhaustive partition drops pass through without waiting. The grid
        has no barrier (`UnsupportedOperationError`).

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


@marker("groups", implemented=True, host_value=True)
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
    return GroupDescriptor._make("thread", 1)


@marker("groups", implemented=True, host_value=True)
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
    if block_shape is None:
        return GroupDescriptor._make("block")
    shape = (block_shape,) if isinstance(block_shape, int) else tuple(block_shape)
    valid = 1 <= len(shape) <= 3 and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape)
    if not valid:
        raise ValueError(f"coop.this_block: block_shape = {block_shape!r}; expected 1 to 3 positive ints")
    shape = shape + (1,) * (3 - len(shape))
    return GroupDescriptor._make("block", shape[0] * shape[1] * shape[2], shape)


@marker("groups", implemented=True, host_value=True)
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
                largest = coop.reduce(warp, values[cuda.threadIdx.x], binary_op="max")
                if cuda.threadIdx.x % 32 == 0:
                    maxima[cuda.threadIdx.x // 32] = largest

            values = np.arange(128, dtype=np.int32)
            maxima = np.zeros(4, dtype=np.int32)
            warp_max[1, 128](values, maxima)
    """
    return GroupDescriptor._make("warp", 32)


@marker("groups", implemented=True, host_value=True)
def this_cluster() -> GroupDescriptor:
    """The calling block's thread block cluster (sm_90 and later): the blocks a
    launch with a cluster shape (``kernel[grid, block, stream, sharedmem,
    cluster]``) runs together, sharing their shared memory.

    Its threads are ranked block by block: thread ``t`` of the block of rank
    ``b`` in the cluster (x-major over the cluster's shape) has rank ``b *
    block_threads + t``. `reduce`/`sum` on it combine every thread of every
    block of the cluster (each block reduces, then every member reads the
    blocks' totals from their shared memory after the cluster's barrier),
    with the result in every thread; `sync` is the cluster's barrier;
    ``rank("block")`` is the block's rank in the cluster and ``rank("grid")``
    the cluster's index in the grid. A launch without a cluster runs each
    block as a cluster of one: the same calls then act on the block, on any
    GPU. A cluster of several blocks needs sm_90 (refused at compile time
    below it) and at most 8 blocks, the portable cluster sizes; the grid must
    be a whole number of clusters (the launch fails otherwise).

    Returns:
        The cluster's group descriptor.

    Example:
        One sum over a cluster of two blocks::

            @cuda.jit
            def cluster_sum(values, out):
                cluster = coop.this_cluster()
                total = coop.sum(cluster, values[cluster.rank()])
                if cluster.rank() == 0:
                    out[0] = total

            values = np.ones(256, dtype=np.int32)
            out = np.zeros(1, dtype=np.int32)
            cluster_sum[2, 128, 0, 0, (2, 1, 1)](values, out)
    """
    return GroupDescriptor._make("cluster")


@marker("groups", implemented=True, host_value=True)
def this_grid() -> GroupDescriptor:
    """Every thread of the launch: a group of kind ``"grid"``, for queries.

    ``this_grid().rank()`` is the calling thread's rank in the grid (blocks in
    x-major order, then its rank in its block), ``count()`` the grid's threads,
    ``rank("block")`` / ``count("block")`` its block's index and the number of
    blocks; each a uint64. No collective runs on a grid, and it has no barrier:
    the blocks of a launch cannot wait for one another without a cooperative
    launch, which cuda.coop does not make; both are refused at compile time
    (`UnsupportedOperationError`).

    Returns:
        The grid's group descriptor.

    Example:
        A global thread index::

            @cuda.jit
            def ranks(out):
                grid = coop.this_grid()
                out[grid.rank()] = grid.count()

            out = np.zeros(256, dtype=np.uint64)
            ranks[2, 128](out)
    """
    return GroupDescriptor._make("grid")
