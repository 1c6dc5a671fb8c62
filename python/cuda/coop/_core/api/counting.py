"""Neighbours and counting (CUB BlockAdjacentDifference, BlockDiscontinuity, BlockHistogram,
BlockRunLengthDecode, WarpReduceBatched). Every call returns fresh payloads and leaves its
inputs as they were."""

from __future__ import annotations

from ..markers import marker


@marker("adjacent_difference", implemented=True)
def adjacent_difference(
    group,
    values,
    /,
    *,
    direction="left",
    difference_op=None,
    valid_items=None,
    tile_predecessor_item=None,
    tile_successor_item=None,
    temp_storage=None,
):
    """Combine each item of the block's tile with its neighbour (cub::BlockAdjacentDifference)
    and return the differences as a fresh payload; `values` is left as it was.

    The tile is blocked: item ``i`` of thread ``t`` is tile position ``p = t x
    items_per_thread + i``. With ``direction="left"`` the result at ``p`` is
    ``difference_op(x[p], x[p - 1])``, with ``"right"`` it is ``difference_op(x[p], x[p + 1])``
    (``x[p] - x[p ± 1]`` by default). The item without a neighbour in the tile (the first
    on the left, the last on the right) is combined with `tile_predecessor_item` /
    `tile_successor_item` where one is given, and is copied unchanged otherwise. Every thread
    of the block must reach the call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        values: a `ThreadData` or local array (blocked) of any integer, float or complex
            dtype; or one value per thread, which gives one difference per thread.
        direction: compile-time; ``"left"`` (default) or ``"right"``.
        difference_op: ``op(item, neighbour)`` returning the payload's dtype: ``operator.sub``
            or ``np.subtract`` (the default), any built-in operator name or ufunc
            (``"max"``, ``np.bitwise_xor``, ...), or a Python function of two values.
        valid_items: compile-time or runtime, ``0 <= valid_items <=`` the tile's items: only
            the first `valid_items` take part and the items from there on are copied. On the
            right the last valid item has no neighbour and is copied too (CUB's partial-tile
            form takes no successor, so `tile_successor_item` is refused with it).
        tile_predecessor_item: with ``direction="left"``, the item before the tile (the last
            item of the previous tile), a scalar of the payload's dtype the same in every thread.
        tile_successor_item: with ``direction="right"``, the item after the tile.
        temp_storage: a `TempStorage` the call's scratch comes from.

    Returns:
        A `ThreadData` of the input's extent and dtype (or one value, for one value per thread).

    CUB: ``cub::BlockAdjacentDifference<T, BLOCK_DIM_X, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::SubtractLeft`` (``SubtractLeftPartialTile``, ``SubtractRight``,
    ``SubtractRightPartialTile``).

    Example:
        The difference of each item to the one before it, across tiles (the first
        tile takes its own first item as predecessor)::

            @cuda.jit
            def differences(x, out):
                block = coop.this_block()
                first = cuda.blockIdx.x * 512
                items = coop.load(block, x, coop.ThreadData(4), offset=first)
                previous = x[max(first - 1, 0)]
                diff = coop.adjacent_difference(block, items, tile_predecessor_item=previous)
                coop.store(block, out, diff, offset=first)

            x = (np.arange(1024, dtype=np.int32) ** 2) % 1000
            out = np.zeros_like(x)
            differences[2, 128](x, out)  # out[1:] == np.diff(x), out[0] == 0
    """


@marker("discontinuity", implemented=True)
def discontinuity(
    group,
    values,
    /,
    *,
    mode="heads",
    flag_op=None,
    tile_predecessor_item=None,
    tile_successor_item=None,
    temp_storage=None,
):
    """Flag where runs of equal items begin or end in the block's tile
    (cub::BlockDiscontinuity) and return the flags as fresh int32 payloads (1 or 0).

    The tile is blocked (item ``i`` of thread ``t`` is position ``p = t x items_per_thread +
    i``). An item's head flag is ``flag_op(x[p - 1], x[p])`` and its tail flag
    ``flag_op(x[p], x[p + 1])``, ``a != b`` by default. The tile's first item has no
    predecessor: its head flag compares with `tile_predecessor_item` where one is given,
    and is 1 otherwise; likewise the last tail flag with `tile_successor_item`. Every thread
    of the block must reach the call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        values: a `ThreadData` or local array (blocked) of any dtype; or one value per
            thread, which gives one flag per thread.
        mode: compile-time; ``"heads"`` (default), ``"tails"`` or ``"heads_and_tails"``.
        flag_op: ``op(a, b)`` returning a bool, true where a run boundary lies between
            ``a`` and ``b``: ``operator.ne`` (the default), another comparison
            (``operator.lt``, ``np.greater``, ...), or a Python function of two values.
        tile_predecessor_item: the item before the tile (heads and heads_and_tails), a
            scalar of the payload's dtype the same in every thread.
        tile_successor_item: the item after the tile (tails and heads_and_tails).
        temp_storage: a `TempStorage` the call's scratch comes from.

    Returns:
        A `ThreadData` of int32 flags of the input's extent; ``(heads, tails)`` for
        ``mode="heads_and_tails"`` (one flag, or two, for one value per thread).

    CUB: ``cub::BlockDiscontinuity<T, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>::FlagHeads``
    (``FlagTails``, ``FlagHeadsAndTails``).

    Example:
        Mark the first item of each run of equal keys::

            @cuda.jit
            def run_heads(keys, flags):
                block = coop.this_block()
                items = coop.load(block, keys, coop.ThreadData(4))
                heads = coop.discontinuity(block, items)
                coop.store(block, flags, heads)

            keys = np.repeat(np.arange(64, dtype=np.int32), 8)
            flags = np.zeros(512, dtype=np.int32)
            run_heads[1, 128](keys, flags)  # flags[0] == 1, flags[1:] == (keys[1:] != keys[:-1])
    """


@marker("histogram", implemented=True)
def histogram(group, samples, /, *, bins, bins_per_thread=1, counter_dtype=None, algorithm="atomic", temp_storage=None):
    """Count the block's samples into `bins` bins (cub::BlockHistogram) and return the
    counters as a fresh striped payload; `samples` is left as it was.

    Each thread holds `bins_per_thread` counters: slot ``i`` of the thread of linear rank
    ``t`` (``threadIdx.x + blockDim.x x (threadIdx.y + blockDim.y x threadIdx.z)``) counts
    bin ``t + i x threads``, and a slot past the last bin holds 0. Store them with
    ``coop.store(block, out, counts, algorithm="striped")`` to get the bins in order. The
    counters are zeroed on every call; to accumulate over tiles, add each call's counters
    to a `ThreadData` of your own. Every thread of the block must reach the call.

    A sample counts in bin ``sample``. Samples are read as their unsigned bits, and a
    sample that is not below `bins` (a negative signed one included) is **not counted**:
    CUB would write past its counters, and here it goes to an overflow bin that is never
    returned. Every sample of the tile counts: a partial tile must give its missing items
    a value of its choice (``bins`` itself is one that is not counted).

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        samples: a `ThreadData` or local array of integer samples (int8 to int64, uint8 to
            uint64); or one sample per thread.
        bins: compile-time, at least 1 and at most the block's threads x `bins_per_thread`.
        bins_per_thread: compile-time, at least 1 (default 1): the counters each thread
            holds.
        counter_dtype: compile-time: ``"int32"`` (the default; Python's ``int`` is int32
            too), ``"uint32"``, ``"int64"`` or ``"uint64"``, given as its name, a NumPy type,
            ``np.dtype`` or a kernel compiler type (``types.int64``).
        algorithm: compile-time; ``"atomic"`` (default: shared-memory atomics, best when
            samples spread over many bins) or ``"sort"`` (a block radix sort of the samples,
            then run lengths: no contention on a few hot bins).
        temp_storage: a `TempStorage` the call's scratch comes from (CUB's and the counters).

    Returns:
        A `ThreadData` of `bins_per_thread` counters of `counter_dtype`, striped.

    CUB: ``cub::BlockHistogram<T, BLOCK_DIM_X, ITEMS_PER_THREAD, BINS, ALGORITHM,
    BLOCK_DIM_Y, BLOCK_DIM_Z>::Histogram`` over the samples as unsigned integers, in an
    adapter holding the counters.

    Example:
        A 256-bin histogram of bytes, one tile per block, merged into a global one::

            @cuda.jit
            def byte_histogram(data, total):
                block = coop.this_block()
                samples = coop.load(block, data, coop.ThreadData(16), offset=cuda.blockIdx.x * 2048)
                counts = coop.histogram(block, samples, bins=256, bins_per_thread=2)
                for i in range(2):
                    index = cuda.threadIdx.x + i * 128
                    if index < 256 and counts[i] != 0:
                        cuda.atomic.add(total, index, counts[i])

            data = np.random.default_rng(0).integers(0, 256, 2048 * 64, dtype=np.uint8)
            total = np.zeros(256, dtype=np.int32)
            byte_histogram[64, 128](data, total)  # total == np.bincount(data, minlength=256)
    """


@marker("run_length_decode", implemented=True)
def run_length_decode(
    group,
    run_values,
    run_lengths,
    /,
    *,
    decoded_items_per_thread,
    decoded_window_offset=0,
    total_decoded_size=None,
    relative_offsets=None,
    decoded_offset_dtype=None,
    temp_storage=None,
):
    """Decode one window of the block's run-length encoded tile (cub::BlockRunLengthDecode)
    and return it as a fresh blocked payload; the runs are left as they were.

    The tile's runs are blocked: run ``r = t x runs_per_thread + j`` is item ``j`` of thread
    ``t`` of `run_values` and `run_lengths`. The decoded stream repeats each run's value its
    length times, in run order (``np.repeat(values, lengths)``), and its length is the
    total. Slot ``i`` of the thread of linear rank ``t`` (``threadIdx.x + blockDim.x x
    (threadIdx.y + blockDim.y x threadIdx.z)``) holds decoded index ``decoded_window_offset
    + t x decoded_items_per_thread + i``; a slot at or past the total holds 0, so a window
    starting at or past the total is all zeros. Nothing wraps: a window whose indices would
    pass 2**64 - 1 (or the offset dtype's max) is zeros there, not the stream's start. Call it
    once per window, moving the offset on by ``threads x decoded_items_per_thread``, to decode
    a stream longer than one window (or see `run_length_decode_into`). Every thread of the
    block must reach the call.

    Decoded indices are counted in the offset dtype: `decoded_offset_dtype` where given; else
    the dtype of `relative_offsets` or `total_decoded_size` where the kernel typed them; else
    the lengths' dtype, widened to 32 bits when narrower (int8 and int16 lengths count in int32,
    uint8 and uint16 in uint32). The total, and so every decoded index, must be a value of it.

    Lengths are integers of any width, signed or unsigned, up to the largest the offset dtype
    holds (a single run of 2**64 - 1 items decodes with uint64 offsets). The positive ones
    come first: zeros after them are runs that are not there (padding), and a tile of zeros is
    an empty stream. These **trap** (the kernel fails with a launch error, before the call
    writes anything): a negative length, a zero length followed by a positive one, a total
    past the offset dtype's max (or past 2**64 - 1), and a negative offset. CUB would decode
    them wrongly.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        run_values: a `ThreadData` or local array (blocked) of the runs' values, of any
            integer or float dtype; or one run per thread.
        run_lengths: the runs' lengths, as many per thread as `run_values`, of an integer dtype.
        decoded_items_per_thread: compile-time, at least 1: the window's items per thread.
        decoded_window_offset: compile-time (0 to 2**64 - 1) or runtime (an integer of any
            dtype, uint64 included, at least 0), default 0: the decoded index the window
            starts at, the same in every thread. It need not be a value of the offset dtype:
            one at or past the total gives a window of zeros.
        total_decoded_size: a `ThreadData` (or local array) of the offset dtype that
            receives the total in each item, in every thread, whatever its window holds; an
            untyped `ThreadData` takes the offset dtype.
        relative_offsets: a `ThreadData` of `decoded_items_per_thread` items of the offset
            dtype (an untyped one takes it) that receives each decoded item's index within
            its run; a slot at or past the total receives the offset dtype's maximum when it
            is unsigned and -1 when it is signed.
        decoded_offset_dtype: compile-time: any integer dtype, ``"int8"``, ``"int16"``,
            ``"int32"``, ``"int64"``, ``"uint8"``, ``"uint16"``, ``"uint32"`` or ``"uint64"``,
            as its name, a NumPy type or ``np.dtype`` or a kernel compiler type: the dtype
            decoded indices are counted in, and the dtype of `total_decoded_size` and
            `relative_offsets` (a typed one of another dtype is refused). Omitted, see above.
        temp_storage: a `TempStorage` the call's scratch comes from.

    Returns:
        A `ThreadData` of `decoded_items_per_thread` items of the values' dtype.

    CUB: ``cub::BlockRunLengthDecode<ItemT, BLOCK_DIM_X, RUNS_PER_THREAD,
    DECODED_ITEMS_PER_THREAD, DecodedOffsetT, BLOCK_DIM_Y, BLOCK_DIM_Z>::RunLengthDecode``,
    handed run offsets that an adapter scans and checks itself (CUB counts in an unsigned
    ``DecodedOffsetT`` of at least 32 bits; the adapter decides which slots are valid).

    Example:
        Expand one tile of runs per block, one window of 512 items at a time::

            @cuda.jit
            def expand(values, lengths, out, windows):
                block = coop.this_block()
                first = cuda.blockIdx.x * 256
                runs = coop.load(block, values, coop.ThreadData(2, dtype=np.int32), offset=first)
                sizes = coop.load(block, lengths, coop.ThreadData(2, dtype=np.int32), offset=first)
                for window in range(windows):
                    decoded = coop.run_length_decode(
                        block, runs, sizes, decoded_items_per_thread=4, decoded_window_offset=window * 512
                    )
                    coop.store(block, out, decoded, offset=(cuda.blockIdx.x * windows + window) * 512)
    """


@marker("run_length_decode", implemented=True)
def run_length_decode_into(
    group,
    run_values,
    run_lengths,
    destination,
    /,
    *,
    decoded_items_per_thread,
    destination_offset=0,
    relative_offsets=None,
    decoded_offset_dtype=None,
    temp_storage=None,
):
    """Decode the block's whole run-length encoded tile into `destination` and return its
    length (cub::BlockRunLengthDecode, every window after one scan of the lengths).

    Decoded index ``k`` (``np.repeat(values, lengths)[k]``) is written to
    ``destination[destination_offset + k]`` for every ``k`` below the total, and with
    `relative_offsets` its index within its run to ``relative_offsets[destination_offset +
    k]``; nothing else is written: the items around them keep their values. The block decodes
    ``threads x decoded_items_per_thread`` items per step, as many steps as the total needs.
    The runs, their lengths, the offset dtype and what traps are as for `run_length_decode`.
    Besides, the call **traps** before it writes anything where `destination` (or
    `relative_offsets`) holds fewer than ``destination_offset + total`` elements, and where
    `destination_offset` is negative. Every thread of the block must reach the call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        run_values: a `ThreadData` or local array (blocked) of the runs' values, of any
            integer or float dtype; or one run per thread.
        run_lengths: the runs' lengths, as many per thread as `run_values`, of an integer dtype.
        destination: a device array of the values' dtype (its elements in C order).
        decoded_items_per_thread: compile-time, at least 1: the items each thread decodes per step.
        destination_offset: compile-time or runtime (an integer of any dtype, uint64 included),
            at least 0 (default 0): where in `destination` decoded index 0 goes.
        relative_offsets: a device array of the offset dtype (an integer dtype), as long as the
            destination needs to be, that receives each decoded item's index within its run at
            the item's position; its dtype is the offset dtype where `decoded_offset_dtype` is
            omitted.
        decoded_offset_dtype: compile-time, any integer dtype (``"int8"``, ``"int16"``,
            ``"int32"``, ``"int64"``, ``"uint8"``, ``"uint16"``, ``"uint32"``, ``"uint64"``): the
            dtype decoded indices are counted in, and the dtype of the total returned and of
            `relative_offsets`. Omitted: the dtype of `relative_offsets`, else the lengths'
            dtype (at least 32 bits wide).
        temp_storage: a `TempStorage` the call's scratch comes from.

    Returns:
        The total, a scalar of the offset dtype, in every thread.

    CUB: ``cub::BlockRunLengthDecode<ItemT, BLOCK_DIM_X, RUNS_PER_THREAD,
    DECODED_ITEMS_PER_THREAD, DecodedOffsetT, BLOCK_DIM_Y, BLOCK_DIM_Z>::RunLengthDecode`` once
    per step, in an adapter that scans and checks the lengths and the arrays' room.

    Example:
        Expand the runs of many tiles, each tile's output where a host-side scan of the tiles'
        totals puts it::

            @cuda.jit
            def expand(values, lengths, starts, out, totals):
                block = coop.this_block()
                first = cuda.blockIdx.x * 256
                runs = coop.load(block, values, coop.ThreadData(2, dtype=np.int32), offset=first)
                sizes = coop.load(block, lengths, coop.ThreadData(2, dtype=np.int32), offset=first)
                total = coop.run_length_decode_into(
                    block, runs, sizes, out, decoded_items_per_thread=4, destination_offset=starts[cuda.blockIdx.x]
                )
                if cuda.threadIdx.x == 0:
                    totals[cuda.blockIdx.x] = total
    """


@marker("reduce_batched", implemented=True)
def reduce_batched(group, value, /, *, binary_op=None, output_layout="striped"):
    """Reduce many batches across a warp at once (cub::WarpReduceBatched): item ``b`` of
    every lane of the group belongs to batch ``b``, and each batch's reduction comes back
    as a fresh payload; `value` is left as it was.

    With ``B`` items per lane (batches) and ``W`` lanes, the result has ``ceil(B / W)``
    items per lane: ``"striped"`` puts batch ``r + i x W`` in slot ``i`` of lane ``r``,
    ``"blocked"`` puts batch ``r x ceil(B / W) + i`` there. Slots without a batch are
    unspecified. Every lane of the group must reach the call.

    Needs a CCCL that has ``cub::WarpReduceBatched`` (CCCL 3.5 or newer): with an older
    one a kernel calling it is refused at compile time, naming the CCCL in use; point
    ``CUDA_COOP_CCCL_ROOT`` at a newer CCCL's headers.

    Args:
        group: `this_warp()` or a logical warp (``this_warp().group_by(n)``, n a power
            of two); the block must be whole warps.
        value: a `ThreadData` or local array of the batches' items (any integer or float
            dtype), one item per batch.
        binary_op: the reduction operator (default the sum): a built-in name or ufunc
            (``"max"``, ``np.minimum``, ``operator.xor``, ...) or a Python function of two
            values; it must be associative.
        output_layout: compile-time; ``"striped"`` (default) or ``"blocked"``.

    Returns:
        A `ThreadData` of ``ceil(B / W)`` items of the input's dtype.

    CUB: ``cub::WarpReduceBatched<T, Batches, LogicalWarpThreads>::ReduceToStriped``
    (``ReduceToBlocked``).

    Example:
        Sums of 4 features over each warp's 32 rows::

            @cuda.jit
            def feature_sums(samples, totals):
                warp = coop.this_warp()
                features = coop.load(warp, samples, coop.ThreadData(4))  # each warp's own 128 values
                sums = coop.reduce_batched(warp, features)
                if warp.rank() < 4:
                    totals[(cuda.threadIdx.x // 32) * 4 + warp.rank()] = sums[0]
    """
