"""Reductions and scans (CUB BlockReduce/WarpReduce, BlockScan/WarpScan).

The reductions take `temp_storage=` last, as load and store do: sequential
reductions are where "exclusive" sharing pays (no barrier between them)."""

from __future__ import annotations

from ..markers import marker

_OPERATORS = """a built-in operator by name, ``"sum"`` (also ``"+"``,
            ``"add"``, ``"plus"``), ``"mul"`` (``"*"``, ``"multiply"``), ``"min"``
            (``"minimum"``), ``"max"`` (``"maximum"``), ``"bit_and"`` (``"&"``),
            ``"bit_or"`` (``"|"``), ``"bit_xor"`` (``"^"``) (the bitwise ones for
            integers; min and max not for complex); ``operator.add`` and the like;
            a NumPy ufunc (``np.add``, ``np.maximum``, ...); or a Python function
            ``f(a, b)`` (a lambda or a ``@cuda.jit(device=True)`` function too) that
            is associative, whose result is converted to the payload's dtype.
            ``None`` (the default) is the sum. Compile-time."""

_STATE = """the state of a ``StatefulFunction`` `prefix_op` (qualified
            namespace): a one-item `ThreadData` or local array of its dtype, which
            the callback reads and updates; only with such a `prefix_op`."""

_PREFIX_OP = """blocks only, not with `initial_value` or
            `aggregate_output`: a block prefix callback, an object made in the
            kernel, ``Cls(state, ...)``, whose class defines ``__call__(self,
            block_aggregate)``. The first warp calls it with the block's total; the
            value lane 0 returns seeds the scan (inclusive results include it). Its
            state is one ``cuda.local.array`` given to the constructor (each lane
            keeps its own copy); its other attributes must be compile-time numbers.
            Or a ``StatefulFunction(op, dtype)`` (qualified namespace) whose state
            is the `state` operand. See the guide page on operators."""


def _documented(text: str) -> str:
    return text.replace("{operators}", _OPERATORS).replace("{prefix_op}", _PREFIX_OP).replace("{state}", _STATE)


@marker("reduce", implemented=True)
def reduce(group, value, /, *, binary_op=None, broadcast=True, valid_items=None, algorithm=None, temp_storage=None):
    """The reduction of the group's items with `binary_op` (cub::BlockReduce / cub::WarpReduce).

    Every thread of the group must reach the call.

    Args:
        group: `this_block()`, `this_warp()`, `this_warp().group_by(n)` or
            `this_thread()` (whose reduction is its own value).
        value: the thread's `ThreadData` or local array (every item takes part),
            or one scalar value per thread; of an integer, float or complex dtype.
            Or one tuple of scalars per thread (a record, ``(s, s * s)``) with a
            Python `binary_op` taking and returning such tuples; the result is
            then a tuple. See the guide page on operators.
        binary_op: {operators}
        broadcast: ``True`` (the default): every thread of the group gets the
            result (a warp's by a shuffle, a block's through a slot beside the
            scratch and one barrier). ``False``: only the group's first thread
            (thread 0 of a block, lane 0 of each warp) gets it, as CUB gives it,
            and the broadcast's cost is saved; other threads get an unspecified
            value. Compile-time.
        valid_items: with a scalar payload, how many of the group's threads take
            part (its first ones), from 1 to the group's size; with a block's
            `ThreadData`, how many items of the blocked tile, from its start,
            from 1 to threads x items (the items past it are ignored, whatever
            they hold). A compile-time or runtime integer (a runtime value out
            of range traps).
        algorithm: blocks only, ``"warp_reductions"`` (the default, also for
            ``None``), ``"raking"`` or ``"raking_commutative_only"`` (for a
            commutative `binary_op`); compile-time.
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
                largest = coop.reduce(block, items, binary_op="max")
                if cuda.threadIdx.x == 0:
                    result[0] = largest

            values = np.arange(512, dtype=np.int32)
            result = np.zeros(1, dtype=np.int32)
            block_max[1, 128](values, result)
    """


reduce.__doc__ = _documented(reduce.__doc__)


@marker("reduce", implemented=True)
def sum(group, value, /, *, broadcast=True, valid_items=None, algorithm=None, temp_storage=None):
    """The sum of the group's items (cub::BlockReduce::Sum / cub::WarpReduce::Sum).

    `reduce` with the sum: same arguments, less the operator.

    Args:
        group: `this_block()`, `this_warp()`, `this_warp().group_by(n)` or
            `this_thread()`.
        value: a `ThreadData`, a local array or one scalar per thread, of an
            integer, float or complex dtype.
        broadcast: ``True`` (default): the sum in every thread of the group;
            ``False``: in its first thread only (CUB's own, no broadcast).
        valid_items: with a scalar payload, how many of the group's threads take
            part, from 1 to the group's size; with a block's `ThreadData`, how
            many items of the blocked tile, from its start (the rest are
            ignored); compile-time or runtime.
        algorithm: blocks only: ``"warp_reductions"`` (default), ``"raking"``,
            ``"raking_commutative_only"``.
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
def segmented_reduce(warp, value, flag, /, *, binary_op=None, flags="heads"):
    """A reduction of each run of lanes of a warp (cub::WarpReduce::HeadSegmentedReduce /
    TailSegmentedReduce).

    Args:
        warp: `this_warp()` or `this_warp().group_by(n)`.
        value: the lane's one value (a scalar).
        flag: the lane's flag: non-zero where a segment starts (``flags="heads"``)
            or ends (``flags="tails"``).
        binary_op: {operators}
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
                total = coop.segmented_reduce(warp, values[lane], head)
                if head:
                    sums[lane // 4] = total

            values = np.arange(32, dtype=np.int32)
            sums = np.zeros(8, dtype=np.int32)
            run_sums[1, 32](values, sums)
    """


segmented_reduce.__doc__ = _documented(segmented_reduce.__doc__)


@marker("scan", implemented=True)
def scan(
    group,
    value,
    state=None,
    /,
    *,
    mode="exclusive",
    scan_op=None,
    initial_value=None,
    algorithm=None,
    temp_storage=None,
    prefix_op=None,
    aggregate_output=None,
    valid_items=None,
    block_prefix_callback_op=None,
):
    """A prefix scan across the group (cub::BlockScan / cub::WarpScan), returning a fresh payload.

    Item ``j`` of the tile (in the blocked order: thread ``t``'s items are
    ``t * items_per_thread`` on) becomes `scan_op` over items ``0..j``
    (inclusive) or ``0..j-1`` (exclusive, seeded with `initial_value`). The
    input is left unchanged. Every thread of the group must reach the call.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: a `ThreadData` or local array, or one scalar per thread; of an
            integer, float or complex dtype. Or one tuple of scalars per thread
            (a record) with a Python `scan_op` taking and returning such tuples
            (and a tuple `initial_value`); the result is then a tuple.
        state: {state}
        mode: ``"exclusive"`` (default) or ``"inclusive"``; compile-time.
        scan_op: {operators}
        initial_value: exclusive scans only: the seed, and item 0's result; a
            value of the payload's dtype, compile-time or runtime. An exclusive
            scan with another operator than the sum needs it (or `prefix_op`); the
            sum starts from 0.
        algorithm: blocks only: ``"raking"`` (default, also for ``None``),
            ``"raking_memoize"``, ``"warp_scans"``; compile-time.
        temp_storage: a `TempStorage` for the scratch.
        prefix_op: {prefix_op}
        aggregate_output: a one-item `ThreadData` or array of the payload's dtype
            that receives the group's aggregate (without `initial_value`) in every
            thread.
        valid_items: warps, one scalar per lane: how many of the group's first
            lanes take part, compile-time or runtime (a runtime count outside
            ``0..width`` traps); the lanes below it get their scan, the others
            an unspecified value, and `aggregate_output` covers the valid lanes.
        block_prefix_callback_op: another name for `prefix_op` (the seed's).

    Returns:
        A new payload of the input's extent and dtype holding the scan; for a
        scalar payload, the thread's scanned value.

    CUB: ``cub::BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::ExclusiveSum`` / ``ExclusiveScan`` / ``InclusiveSum`` /
    ``InclusiveScan``; ``cub::WarpScan<T, LOGICAL_WARP_THREADS>`` likewise (several
    items per lane: reduced in the thread, scanned across the warp, then scanned
    in the thread).

    Example:
        A block's running sum::

            @cuda.jit
            def cumsum(values, sums):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                running = coop.scan(block, items, mode="inclusive")
                coop.store(block, sums, running)

            values = np.ones(512, dtype=np.int32)
            sums = np.zeros_like(values)
            cumsum[1, 128](values, sums)
    """


scan.__doc__ = _documented(scan.__doc__)


@marker("scan", implemented=True)
def inclusive_sum(
    group,
    value,
    state=None,
    /,
    *,
    algorithm=None,
    temp_storage=None,
    prefix_op=None,
    aggregate_output=None,
    valid_items=None,
    block_prefix_callback_op=None,
):
    """Inclusive prefix sum across the group (cub::BlockScan::InclusiveSum /
    cub::WarpScan::InclusiveSum), returning a fresh payload.

    `scan` with ``mode="inclusive"`` and the sum: item ``j`` of the tile (blocked
    order) becomes the sum of items ``0..j``.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: a `ThreadData` or local array, or one scalar per thread; of an
            integer, float or complex dtype.
        state: {state}
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``; compile-time.
        temp_storage: a `TempStorage` for the scratch.
        prefix_op: {prefix_op}
        aggregate_output: a one-item `ThreadData` or array that receives the
            group's total in every thread.
        valid_items: warps, one scalar per lane: how many of the group's first
            lanes take part, compile-time or runtime (a runtime count outside
            ``0..width`` traps); the lanes below it get their scan, the others
            an unspecified value, and `aggregate_output` covers the valid lanes.
        block_prefix_callback_op: another name for `prefix_op` (the seed's).

    Returns:
        A new payload holding the scan (the input is unchanged); for a scalar
        payload, the thread's scanned value.

    CUB: ``cub::BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::InclusiveSum``; ``cub::WarpScan<T, LOGICAL_WARP_THREADS>::InclusiveSum``.

    Example:
        A block's running sum::

            @cuda.jit
            def cumsum(values, sums):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                coop.store(block, sums, coop.inclusive_sum(block, items))

            values = np.ones(512, dtype=np.int32)
            sums = np.zeros_like(values)
            cumsum[1, 128](values, sums)
    """


inclusive_sum.__doc__ = _documented(inclusive_sum.__doc__)


@marker("scan", implemented=True)
def exclusive_sum(
    group,
    value,
    state=None,
    /,
    *,
    algorithm=None,
    temp_storage=None,
    prefix_op=None,
    aggregate_output=None,
    valid_items=None,
    block_prefix_callback_op=None,
):
    """Exclusive prefix sum across the group (cub::BlockScan::ExclusiveSum /
    cub::WarpScan::ExclusiveSum), returning a fresh payload.

    Item ``j`` of the tile becomes the sum of items ``0..j-1`` (item 0 becomes 0).

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: a `ThreadData`, a local array or one scalar per thread (a tuple of
            scalars too, with a Python `scan_op`: see `scan`).
        state: {state}
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.
        prefix_op: {prefix_op}
        aggregate_output: a one-item `ThreadData` or array that receives the
            group's total in every thread.
        valid_items: warps, one scalar per lane: how many of the group's first
            lanes take part, compile-time or runtime (a runtime count outside
            ``0..width`` traps); the lanes below it get their scan, the others
            an unspecified value, and `aggregate_output` covers the valid lanes.
        block_prefix_callback_op: another name for `prefix_op` (the seed's).

    Returns:
        A new payload holding the scan; for a scalar payload, the thread's
        scanned value.

    CUB: ``cub::BlockScan<...>::ExclusiveSum``, ``cub::WarpScan<...>::ExclusiveSum``.

    Example:
        Output positions of the positive values, and their count::

            @cuda.jit
            def positions(values, where, count):
                block = coop.this_block()
                keep = values[cuda.threadIdx.x] > 0
                total = coop.ThreadData(1, dtype=np.int64)
                position = coop.exclusive_sum(block, 1 if keep else 0, aggregate_output=total)
                where[cuda.threadIdx.x] = position if keep else -1
                if cuda.threadIdx.x == 0:
                    count[0] = total[0]

            values = np.arange(-64, 64, dtype=np.int32)
            where = np.zeros(128, dtype=np.int64)
            count = np.zeros(1, dtype=np.int64)  # the payload, 1 or 0, is a Python int: int64
            positions[1, 128](values, where, count)
    """


exclusive_sum.__doc__ = _documented(exclusive_sum.__doc__)


@marker("scan", implemented=True)
def inclusive_scan(
    group,
    value,
    state=None,
    /,
    *,
    scan_op=None,
    algorithm=None,
    temp_storage=None,
    prefix_op=None,
    aggregate_output=None,
    valid_items=None,
    block_prefix_callback_op=None,
):
    """Inclusive scan with `scan_op` across the group (cub::BlockScan::InclusiveScan /
    cub::WarpScan::InclusiveScan), returning a fresh payload.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: a `ThreadData`, a local array or one scalar per thread (a tuple of
            scalars too, with a Python `scan_op`: see `scan`).
        state: {state}
        scan_op: {operators}
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.
        prefix_op: {prefix_op}
        aggregate_output: a one-item `ThreadData` or array that receives the
            group's reduction in every thread.
        valid_items: warps, one scalar per lane: how many of the group's first
            lanes take part, compile-time or runtime (a runtime count outside
            ``0..width`` traps); the lanes below it get their scan, the others
            an unspecified value, and `aggregate_output` covers the valid lanes.
        block_prefix_callback_op: another name for `prefix_op` (the seed's).

    Returns:
        A new payload holding the scan; for a scalar payload, the thread's
        scanned value.

    CUB: ``cub::BlockScan<...>::InclusiveScan``, ``cub::WarpScan<...>::InclusiveScan``.

    Example:
        A running maximum across a warp::

            @cuda.jit
            def running_max(values, result):
                warp = coop.this_warp()
                lane = cuda.threadIdx.x
                result[lane] = coop.inclusive_scan(warp, values[lane], scan_op="max")

            values = np.random.default_rng(2).integers(0, 100, 32).astype(np.int32)
            result = np.zeros_like(values)
            running_max[1, 32](values, result)
    """


inclusive_scan.__doc__ = _documented(inclusive_scan.__doc__)


@marker("scan", implemented=True)
def exclusive_scan(
    group,
    value,
    state=None,
    /,
    *,
    scan_op=None,
    initial_value=None,
    algorithm=None,
    temp_storage=None,
    prefix_op=None,
    aggregate_output=None,
    valid_items=None,
    block_prefix_callback_op=None,
):
    """Exclusive scan with `scan_op` across the group (cub::BlockScan::ExclusiveScan /
    cub::WarpScan::ExclusiveScan), returning a fresh payload.

    Item ``j`` becomes `scan_op` over items ``0..j-1``, seeded with `initial_value`.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: a `ThreadData`, a local array or one scalar per thread (a tuple of
            scalars too, with a Python `scan_op`: see `scan`).
        state: {state}
        scan_op: {operators}
        initial_value: the seed, and item 0's result; a value of the payload's
            dtype, compile-time or runtime. Needed (or `prefix_op`) with an
            operator other than the sum, which starts from 0.
        algorithm: blocks only: ``"raking"`` (default), ``"raking_memoize"``,
            ``"warp_scans"``.
        temp_storage: a `TempStorage` for the scratch.
        prefix_op: {prefix_op}
        aggregate_output: a one-item `ThreadData` or array that receives the
            group's reduction (without `initial_value`) in every thread.
        valid_items: warps, one scalar per lane: how many of the group's first
            lanes take part, compile-time or runtime (a runtime count outside
            ``0..width`` traps); the lanes below it get their scan, the others
            an unspecified value, and `aggregate_output` covers the valid lanes.
        block_prefix_callback_op: another name for `prefix_op` (the seed's).

    Returns:
        A new payload holding the scan; for a scalar payload, the thread's
        scanned value.

    CUB: ``cub::BlockScan<...>::ExclusiveScan``, ``cub::WarpScan<...>::ExclusiveScan``.

    Example:
        The minimum of the items before each one, seeded with infinity::

            @cuda.jit
            def minimum_before(values, result):
                block = coop.this_block()
                items = coop.ThreadData(2)
                coop.load(block, values, items)
                before = coop.exclusive_scan(block, items, scan_op="min", initial_value=np.inf)
                coop.store(block, result, before)

            values = np.random.default_rng(4).standard_normal(256).astype(np.float32)
            result = np.zeros_like(values)
            minimum_before[1, 128](values, result)
    """


exclusive_scan.__doc__ = _documented(exclusive_scan.__doc__)


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
