"""Reductions and scans (CUB BlockReduce/WarpReduce, BlockScan/WarpScan).

Beyond API.md's signatures, the reductions and scans that have block forms take
`temp_storage=` last, as load and store do: API.md's TempStorage row names every
primitive with scratch, and sequential reductions are where "exclusive" sharing
pays (no barrier between them)."""

from __future__ import annotations

from ..markers import marker


@marker("reduce", implemented=True)
def reduce(group, items, op, /, *, valid_items=None, algorithm="warp_reductions", broadcast=True, temp_storage=None):
    """The reduction of the group's items with `op` (cub::BlockReduce / cub::WarpReduce).

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: the thread's `ThreadData` or local array (every item takes part),
            or one scalar value per thread; of an integer, float or complex dtype.
        op: a built-in operator by name, ``"sum"``, ``"min"``, ``"max"``, ``"bit_and"``, ``"bit_or"``, ``"bit_xor"`` (the bitwise ones
            for integers; min and max not for complex), or a Python function
            ``op(a, b)`` (a lambda or a ``@cuda.jit(device=True)`` function too)
            that is associative; its result is converted to the payload's dtype.
        valid_items: how many of the group's items take part, counted in the
            blocked order (thread ``t``'s items ``t * items_per_thread`` on); a
            compile-time or runtime integer. With a scalar payload: how many
            threads.
        algorithm: blocks only, ``"warp_reductions"`` (default), ``"raking"`` or
            ``"raking_commutative_only"`` (for a commutative `op`); compile-time.
        broadcast: ``True`` (the default): every thread of the group gets the
            result (a warp's by a shuffle, a block's through a slot beside the
            scratch and one barrier). ``False``: only the group's first thread
            (thread 0 of a block, lane 0 of each warp) gets it, as CUB gives it,
            and the broadcast's cost is saved; other threads get an unspecified
            value. Compile-time.
        temp_storage: a `TempStorage` for the scratch (blocks and warps).

    Returns:
        The reduction, of the payload's dtype, in every thread of the group (in
        its first thread only with ``broadcast=False``).

    CUB: ``cub::BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::Reduce``; ``cub::WarpReduce<T, LOGICAL_WARP_THREADS>::Reduce``
    (a thread's several items are first reduced in the thread).

    Example:
        The largest item of a block::

            @cuda.jit
            def block_max(values, result):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                largest = coop.reduce(block, items, "max")
                if cuda.threadIdx.x == 0:
                    result[0] = largest

            values = np.arange(512, dtype=np.int32)
            result = np.zeros(1, dtype=np.int32)
            block_max[1, 128](values, result)
    """


@marker("reduce", implemented=True)
def sum(group, items, /, *, valid_items=None, algorithm="warp_reductions", broadcast=True, temp_storage=None):
    """The sum of the group's items (cub::BlockReduce::Sum / cub::WarpReduce::Sum).

    `reduce` with ``"sum"``: same arguments, less the operator.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: a `ThreadData`, a local array or one scalar per thread, of an
            integer, float or complex dtype.
        valid_items: how many of the group's items take part (blocked order);
            compile-time or runtime.
        algorithm: blocks only: ``"warp_reductions"`` (default), ``"raking"``,
            ``"raking_commutative_only"``.
        broadcast: ``True`` (default): the sum in every thread of the group;
            ``False``: in its first thread only (CUB's own, no broadcast).
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        The sum, of the payload's dtype (integers wrap as in C++), in every
        thread of the group (in its first thread only with ``broadcast=False``).

    CUB: ``cub::BlockReduce<...>::Sum``, ``cub::WarpReduce<...>::Sum``.

    Example:
        A sum per block, written by its thread 0::

            @cuda.jit
            def block_sums(values, sums):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items, offset=cuda.blockIdx.x * 512)
                total = coop.sum(block, items)
                if cuda.threadIdx.x == 0:
                    sums[cuda.blockIdx.x] = total

            values = np.ones(8 * 512, dtype=np.float64)
            sums = np.zeros(8, dtype=np.float64)
            block_sums[8, 128](values, sums)
    """


@marker("reduce", implemented=True)
def segmented_reduce(warp, value, flag, op, /, *, flags="heads"):
    """A reduction of each run of lanes of a warp (cub::WarpReduce::HeadSegmentedReduce /
    TailSegmentedReduce).

    Args:
        warp: `this_warp()` or `this_warp().group_by(n)`.
        value: the lane's one value (a scalar).
        flag: the lane's flag: non-zero where a segment starts (``flags="heads"``)
            or ends (``flags="tails"``).
        op: a built-in operator name or a Python function, as for `reduce`.
        flags: ``"heads"`` (default) or ``"tails"``; compile-time.

    Returns:
        The reduction of the lane's segment, valid in the first lane of each
        segment (lane 0 always starts one).

    CUB: ``cub::WarpReduce<T, LOGICAL_WARP_THREADS>::HeadSegmentedReduce`` or
    ``::TailSegmentedReduce``.

    Example:
        Sums of runs of 4 lanes, flagged at their heads::

            @cuda.jit
            def run_sums(values, sums):
                warp = coop.this_warp()
                lane = cuda.threadIdx.x
                head = 1 if lane % 4 == 0 else 0
                total = coop.segmented_reduce(warp, values[lane], head, "sum")
                if head:
                    sums[lane // 4] = total

            values = np.arange(32, dtype=np.int32)
            sums = np.zeros(8, dtype=np.int32)
            run_sums[1, 32](values, sums)
    """


@marker("scan", implemented=True)
def inclusive_sum(
    group, items, /, *, output=None, block_aggregate=None, prefix_op=None, algorithm="raking", temp_storage=None
):
    """Inclusive prefix sum across the group (cub::BlockScan::InclusiveSum /
    cub::WarpScan::InclusiveSum).

    Item ``j`` of the tile (in the blocked order) becomes the sum of items
    ``0..j``. Every thread of the group must reach the call.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: a `ThreadData` or local array, scanned in place (or into
            `output`), or one scalar per thread; of an integer, float or complex
            dtype.
        output: a payload of the same extent and dtype that receives the scan
            instead of `items`.
        block_aggregate: a one-element array that receives the group's total.
        prefix_op: blocks only, not with `block_aggregate`: a block prefix
            callback, an object made in the kernel, ``Cls(state, ...)``, whose
            class defines ``__call__(self, block_aggregate)``. The first warp
            calls it with the block's total; the value lane 0 returns seeds the
            scan. Its state is one ``cuda.local.array`` given to the constructor
            (each lane keeps its own copy); its other attributes must be
            compile-time numbers. See the guide page on operators.
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``; compile-time.
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        For a scalar payload, the thread's scanned value; else None.

    CUB: ``cub::BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::InclusiveSum``; ``cub::WarpScan<T, LOGICAL_WARP_THREADS>::InclusiveSum``
    (several items per lane: reduced in the thread, scanned across the warp,
    then scanned in the thread).

    Example:
        A block's running sum, in place::

            @cuda.jit
            def cumsum(values, sums):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                coop.inclusive_sum(block, items)
                coop.store(block, sums, items)

            values = np.ones(512, dtype=np.int32)
            sums = np.zeros_like(values)
            cumsum[1, 128](values, sums)
    """


@marker("scan", implemented=True)
def exclusive_sum(
    group, items, /, *, output=None, block_aggregate=None, prefix_op=None, algorithm="raking", temp_storage=None
):
    """Exclusive prefix sum across the group (cub::BlockScan::ExclusiveSum /
    cub::WarpScan::ExclusiveSum).

    Item ``j`` of the tile becomes the sum of items ``0..j-1`` (item 0 becomes 0).

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: a `ThreadData`, a local array or one scalar per thread.
        output: a payload that receives the scan instead of `items`.
        block_aggregate: a one-element array that receives the group's total.
        prefix_op: blocks only, as for `inclusive_sum`.
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        For a scalar payload, the thread's scanned value; else None.

    CUB: ``cub::BlockScan<...>::ExclusiveSum``, ``cub::WarpScan<...>::ExclusiveSum``.

    Example:
        Output positions of the positive values, and their count::

            @cuda.jit
            def positions(values, where, count):
                block = coop.this_block()
                keep = values[cuda.threadIdx.x] > 0
                position = coop.exclusive_sum(block, 1 if keep else 0, block_aggregate=count)
                where[cuda.threadIdx.x] = position if keep else -1

            values = np.arange(-64, 64, dtype=np.int32)
            where = np.zeros(128, dtype=np.int64)
            count = np.zeros(1, dtype=np.int64)  # the payload, 1 or 0, is a Python int: int64
            positions[1, 128](values, where, count)
    """


@marker("scan", implemented=True)
def inclusive_scan(
    group,
    items,
    op,
    /,
    *,
    output=None,
    initial_value=None,
    block_aggregate=None,
    prefix_op=None,
    algorithm="raking",
    temp_storage=None,
):
    """Inclusive scan with `op` across the group (cub::BlockScan::InclusiveScan /
    cub::WarpScan::InclusiveScan).

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: a `ThreadData`, a local array or one scalar per thread.
        op: a built-in operator name or a Python function, as for `reduce`.
        output: a payload that receives the scan instead of `items`.
        initial_value: a value of the payload's dtype that seeds the scan (item
            ``j`` becomes ``op(initial_value, items 0..j)``); compile-time or
            runtime. Blocks take it with a `ThreadData` or local array only.
        block_aggregate: a one-element array that receives the group's reduction.
        prefix_op: blocks only, as for `inclusive_sum`; not with `initial_value`.
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        For a scalar payload, the thread's scanned value; else None.

    CUB: ``cub::BlockScan<...>::InclusiveScan``, ``cub::WarpScan<...>::InclusiveScan``.

    Example:
        A running maximum across a warp::

            @cuda.jit
            def running_max(values, result):
                warp = coop.this_warp()
                lane = cuda.threadIdx.x
                result[lane] = coop.inclusive_scan(warp, values[lane], "max")

            values = np.random.default_rng(2).integers(0, 100, 32).astype(np.int32)
            result = np.zeros_like(values)
            running_max[1, 32](values, result)
    """


@marker("scan", implemented=True)
def exclusive_scan(
    group,
    items,
    op,
    /,
    *,
    output=None,
    initial_value=None,
    block_aggregate=None,
    prefix_op=None,
    algorithm="raking",
    temp_storage=None,
):
    """Exclusive scan with `op` across the group (cub::BlockScan::ExclusiveScan /
    cub::WarpScan::ExclusiveScan).

    Item ``j`` becomes ``op`` over items ``0..j-1``, seeded with `initial_value`.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        items: a `ThreadData`, a local array or one scalar per thread.
        op: a built-in operator name or a Python function, as for `reduce`.
        output: a payload that receives the scan instead of `items`.
        initial_value: the seed, and item 0's result; a value of the payload's
            dtype, compile-time or runtime. Without it (and without `prefix_op`)
            the first item's result is unspecified, as in CUB.
        block_aggregate: a one-element array that receives the group's reduction.
        prefix_op: blocks only, as for `inclusive_sum`; not with `initial_value`.
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        For a scalar payload, the thread's scanned value; else None.

    CUB: ``cub::BlockScan<...>::ExclusiveScan``, ``cub::WarpScan<...>::ExclusiveScan``.

    Example:
        The minimum of the items before each one, seeded with the dtype's largest value::

            @cuda.jit
            def minimum_before(values, result):
                block = coop.this_block()
                items = coop.ThreadData(2)
                coop.load(block, values, items)
                coop.exclusive_scan(block, items, "min", initial_value=np.inf)
                coop.store(block, result, items)

            values = np.random.default_rng(4).standard_normal(256).astype(np.float32)
            result = np.zeros_like(values)
            minimum_before[1, 128](values, result)
    """


@marker("scan", implemented=True)
def broadcast(warp, value, src_lane, /):
    """The `value` of lane `src_lane`, in every lane of the warp (cub::WarpScan::Broadcast).

    Args:
        warp: `this_warp()` or `this_warp().group_by(n)`.
        value: the lane's one value (a scalar of any supported dtype).
        src_lane: the lane whose value every lane gets, ``0 <= src_lane < warp
            width``; compile-time or runtime, the same in every lane.

    Returns:
        Lane `src_lane`'s value.

    CUB: ``cub::WarpScan<T, LOGICAL_WARP_THREADS>::Broadcast``.

    Example:
        Every lane of each warp gets the value of the warp's lane 3::

            @cuda.jit
            def from_lane_three(values, result):
                warp = coop.this_warp()
                result[cuda.threadIdx.x] = coop.broadcast(warp, values[cuda.threadIdx.x], 3)

            values = np.arange(64, dtype=np.float32)
            result = np.zeros(64, dtype=np.float32)
            from_lane_three[1, 64](values, result)
    """
