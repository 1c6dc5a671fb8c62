"""Sorting and selection (CUB BlockRadixSort, BlockRadixRank, BlockMergeSort/WarpMergeSort,
block top-k). Every call returns fresh payloads and leaves its inputs as they were."""

from __future__ import annotations

from ..markers import marker

# How radix sorts, ranks and top-k order keys, in the docstrings of each.
_KEY_ORDER = """Keys are ordered by their bits as CUB's radix traits twiddle them:
    unsigned integers as they are, signed integers with negative values first, floats
    in their numeric order with ``-0.0`` equal to ``+0.0`` (the two keep their input
    order and their bits), NaNs with the sign bit set before ``-inf`` and the others
    after ``+inf``."""


@marker("radix_sort", implemented=True)
def radix_sort_keys(
    group,
    keys,
    /,
    *,
    begin_bit=None,
    end_bit=None,
    descending=False,
    blocked_to_striped=False,
    radix_bits=None,
    memoize_outer_scan=None,
    inner_scan_algorithm=None,
    temp_storage=None,
):
    """Sort the block's tile of keys (cub::BlockRadixSort) and return the sorted keys as a
    fresh payload; `keys` is left as it was.

    The sort is stable: keys that compare equal on the sorted bits keep their order
    in the tile (blocked: item ``i`` of thread ``t`` is tile position ``t x
    items_per_thread + i``). Every thread of the block must reach the call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        keys: a `ThreadData` or local array (blocked) of int8 to int64, uint8 to
            uint64, float16, bfloat16, float32 or float64; or one key per thread,
            which gives one sorted key per thread. The tile holds at most 65535 keys.
        begin_bit: the first key bit the sort reads, ``0 <= begin_bit < end_bit``;
            a compile-time or runtime integer, the same in every thread (default 0).
        end_bit: one past the last bit it reads, ``<= the key's width`` (default:
            the key's width); compile-time or runtime. A runtime bit range outside
            these bounds traps.
        descending: compile-time; largest first (default False).
        blocked_to_striped: compile-time; return the sorted keys striped (item ``i``
            of thread ``t`` is sorted position ``t + i x threads``) rather than
            blocked (default False).
        radix_bits: compile-time, 1 to 8; bits sorted per pass (CUB's RADIX_BITS,
            default 4).
        memoize_outer_scan: compile-time; CUB's MEMOIZE_OUTER_SCAN (default True).
        inner_scan_algorithm: compile-time; CUB's INNER_SCAN_ALGORITHM:
            ``"warp_scans"`` (default), ``"raking"`` or ``"raking_memoize"``.
        temp_storage: a `TempStorage` the sort's scratch comes from.

    Returns:
        A `ThreadData` of the keys' extent and dtype holding the sorted keys (or the
        sorted key, for one key per thread).

    {order}

    CUB: ``cub::BlockRadixSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, cub::NullType,
    RADIX_BITS, MEMOIZE_OUTER_SCAN, INNER_SCAN_ALGORITHM, SMEM_CONFIG, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::Sort`` (``SortDescending``, ``SortBlockedToStriped``,
    ``SortDescendingBlockedToStriped``).

    Example:
        Each block sorts its 512 keys::

            @cuda.jit
            def sort_tiles(values, out):
                block = coop.this_block()
                keys = coop.ThreadData(4)
                coop.load(block, values, keys, offset=cuda.blockIdx.x * 512)
                ordered = coop.radix_sort_keys(block, keys)
                coop.store(block, out, ordered, offset=cuda.blockIdx.x * 512)

            values = np.random.default_rng(1).integers(-1000, 1000, 1024).astype(np.int32)
            out = np.zeros_like(values)
            sort_tiles[2, 128](values, out)  # out[:512] == np.sort(values[:512])
    """


radix_sort_keys.__doc__ = radix_sort_keys.__doc__.replace("{order}", _KEY_ORDER)


@marker("radix_sort", implemented=True)
def radix_sort_pairs(
    group,
    keys,
    values,
    /,
    *,
    begin_bit=None,
    end_bit=None,
    descending=False,
    blocked_to_striped=False,
    radix_bits=None,
    memoize_outer_scan=None,
    inner_scan_algorithm=None,
    temp_storage=None,
):
    """Sort the block's tile of keys and move each value with its key
    (cub::BlockRadixSort); return ``(keys, values)`` as fresh payloads. The inputs are
    left as they were.

    The sort is stable: keys that compare equal on the sorted bits keep their order
    in the tile, and so do their values. Every thread of the block must reach the call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        keys: a `ThreadData` or local array (blocked) of int8 to int64, uint8 to
            uint64, float16, bfloat16, float32 or float64; or one key per thread.
            The tile holds at most 65535 keys.
        values: a `ThreadData` or local array of the keys' extent, of any dtype
            (its own, whatever the keys'); or one value per thread with one key.
        begin_bit: the first key bit the sort reads, ``0 <= begin_bit < end_bit``;
            a compile-time or runtime integer, the same in every thread (default 0).
        end_bit: one past the last bit it reads, ``<= the key's width`` (default:
            the key's width); compile-time or runtime. A runtime bit range outside
            these bounds traps.
        descending: compile-time; largest first (default False).
        blocked_to_striped: compile-time; return the pairs striped rather than blocked.
        radix_bits: compile-time, 1 to 8; bits sorted per pass (default 4).
        memoize_outer_scan: compile-time; CUB's MEMOIZE_OUTER_SCAN (default True).
        inner_scan_algorithm: compile-time: ``"warp_scans"`` (default),
            ``"raking"`` or ``"raking_memoize"``.
        temp_storage: a `TempStorage` the sort's scratch comes from.

    Returns:
        ``(keys, values)``: two `ThreadData` of the inputs' extents and dtypes (or two
        values, for one key and one value per thread).

    {order}

    CUB: ``cub::BlockRadixSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, ValueT, ...>::Sort``
    and the other orders, with values.

    Example:
        The stable order of a tile (an argsort)::

            @cuda.jit
            def argsort_tile(values, order):
                block = coop.this_block()
                keys = coop.ThreadData(4)
                coop.load(block, values, keys)
                positions = coop.ThreadData(4, np.int32)
                for i in range(4):
                    positions[i] = cuda.threadIdx.x * 4 + i
                _, ranked = coop.radix_sort_pairs(block, keys, positions)
                coop.store(block, order, ranked)

            values = np.random.default_rng(2).random(512).astype(np.float32)
            order = np.zeros(512, np.int32)
            argsort_tile[1, 128](values, order)  # order == np.argsort(values, kind="stable")
    """


radix_sort_pairs.__doc__ = radix_sort_pairs.__doc__.replace("{order}", _KEY_ORDER)


@marker("radix_rank", implemented=True)
def radix_rank_keys(
    group,
    keys,
    /,
    *,
    begin_bit=None,
    end_bit=None,
    radix_bits=None,
    descending=False,
    exclusive_digit_prefix=None,
    algorithm="memoize",
    temp_storage=None,
):
    """Rank the block's keys by one radix digit (cub::BlockRadixRank): each key's rank is
    its position in a stable sort of the tile by the digit, bits ``[begin_bit,
    end_bit)``. Returns the ranks as a fresh int32 payload; `keys` is left as it was.

    Every thread of the block must reach the call. ``radix_rank`` is the same call.

    Args:
        group: `this_block()` (any 1-D, 2-D or 3-D block).
        keys: a `ThreadData` or local array (blocked) of integers or floats (ordered
            as radix sorts order them), or one key per thread. At most 65535 keys.
        begin_bit: compile-time; the digit's first bit (default 0).
        end_bit: compile-time; one past its last bit, at most 8 bits above
            `begin_bit` and within the key's width (default ``begin_bit + radix_bits``).
        radix_bits: compile-time; the digit's width, 1 to 8 (default 4, or
            ``end_bit - begin_bit`` when `end_bit` is given; both given must agree).
        descending: compile-time; rank larger digits first (default False).
        exclusive_digit_prefix: a `ThreadData` or local array of int32 that
            receives, for each digit, how many keys have a smaller digit (a greater
            one, descending): digit ``t x P + i`` in item ``i`` of thread ``t``
            (blocked), where ``P = max(1, ceil(2**radix_bits / threads))`` is the
            extent it must have. Digits past ``2**radix_bits`` are unspecified.
        algorithm: compile-time: ``"memoize"`` (default: CUB's BlockRadixRank with
            its outer scan memoized), ``"basic"`` (without) or ``"match"``
            (BlockRadixRankMatch: warp-level matching, less shared memory; the keys
            are exchanged to the warp-striped arrangement it needs and the ranks
            back, so the ranks are the same).
        temp_storage: a `TempStorage` the scratch comes from.

    Returns:
        An int32 `ThreadData` of the keys' extent (or one int32, for one key per
        thread): a permutation of ``0..tile size - 1``.

    {order}

    CUB: ``cub::BlockRadixRank<BLOCK_DIM_X, RADIX_BITS, IS_DESCENDING,
    MEMOIZE_OUTER_SCAN, ...>::RankKeys`` over the keys' twiddled bits with a
    ``cub::BFEDigitExtractor``; ``cub::BlockRadixRankMatch`` for ``"match"``.

    Example:
        The stable rank of each key by its low 4 bits::

            @cuda.jit
            def rank_digits(values, ranks_out):
                block = coop.this_block()
                keys = coop.ThreadData(2)
                coop.load(block, values, keys)
                ranks = coop.radix_rank_keys(block, keys, begin_bit=0, end_bit=4)
                coop.store(block, ranks_out, ranks)

            values = np.random.default_rng(3).integers(0, 256, 256).astype(np.uint32)
            ranks_out = np.zeros(256, np.int32)
            rank_digits[1, 128](values, ranks_out)
            # ranks_out[np.argsort(values & 15, kind="stable")] == np.arange(256)
    """


radix_rank_keys.__doc__ = radix_rank_keys.__doc__.replace("{order}", _KEY_ORDER)

radix_rank = radix_rank_keys  # the seed's earlier name, the same marker


@marker("merge_sort", implemented=True)
def merge_sort_keys(
    group, keys, /, *, compare_op=None, descending=False, valid_items=None, oob_default=None, temp_storage=None
):
    """Sort the group's tile of keys with a comparison (cub::BlockMergeSort /
    cub::WarpMergeSort) and return the sorted keys as a fresh payload; `keys` is left as
    it was.

    Each group sorts its own tile: a block its whole tile, a warp or logical warp of
    ``n`` lanes the ``n x items_per_thread`` keys its lanes hold (blocked). Every
    thread of the group must reach the call. Equal keys may come out in any order.

    Args:
        group: `this_block()` of a power-of-two thread count (1-D, 2-D or 3-D),
            `this_warp()` or `this_warp().group_by(n)`.
        keys: a `ThreadData` or local array (blocked) of any dtype, or one key per
            thread.
        compare_op: a strict "less": ``compare_op(a, b)`` is True when `a` sorts
            before `b`: a Python function, a lambda or a ``@cuda.jit(device=True)``
            function (module-level or nested), ``operator.lt``/``operator.gt``, or a
            name: ``"less"`` (default), ``"greater"``, ``"less_equal"``,
            ``"greater_equal"``. Compile-time.
        descending: compile-time; reverse the order (with `compare_op`, its
            arguments are swapped) (default False).
        valid_items: how many keys of the group's tile take part, ``0..tile
            size``; compile-time or runtime, the same in every thread of the group
            (a runtime value outside the range traps). Needs `oob_default`. Only
            the first `valid_items` results are defined.
        oob_default: a key of the keys' dtype that `compare_op` orders after every
            valid key (the dtype's largest value or ``inf`` for "less"), for the slots
            past `valid_items`; compile-time or runtime. A smaller one would be sorted
            in among the valid keys. Needs `valid_items`.
        temp_storage: a `TempStorage` the scratch comes from (blocks).

    Returns:
        A `ThreadData` of the keys' extent and dtype (or one key per thread).

    CUB: ``cub::BlockMergeSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, cub::NullType,
    BLOCK_DIM_Y, BLOCK_DIM_Z>::Sort``, ``cub::WarpMergeSort<KeyT, ITEMS_PER_THREAD,
    LOGICAL_WARP_THREADS>::Sort``.

    Example:
        Sort each warp's 64 keys by absolute value::

            def by_magnitude(a, b):
                return abs(a) < abs(b)

            @cuda.jit
            def sort_warps(values, out):
                warp = coop.this_warp()
                keys = coop.ThreadData(2)
                coop.load(warp, values, keys)
                ordered = coop.merge_sort_keys(warp, keys, compare_op=by_magnitude)
                coop.store(warp, out, ordered)

            values = np.random.default_rng(4).normal(size=256).astype(np.float32)
            out = np.zeros_like(values)
            sort_warps[1, 128](values, out)
    """


@marker("merge_sort", implemented=True)
def merge_sort_pairs(
    group, keys, values, /, *, compare_op=None, descending=False, valid_items=None, oob_default=None, temp_storage=None
):
    """Sort the group's tile of keys with a comparison and move each value with its key
    (cub::BlockMergeSort / cub::WarpMergeSort); return ``(keys, values)`` as fresh
    payloads. The inputs are left as they were.

    Each group sorts its own tile (see `merge_sort_keys`). Equal keys may come out in
    any order.

    Args:
        group: `this_block()` of a power-of-two thread count, `this_warp()` or
            `this_warp().group_by(n)`.
        keys: a `ThreadData` or local array (blocked) of any dtype, or one key per
            thread.
        values: a `ThreadData` or local array of the keys' extent, of any dtype; or
            one value per thread with one key.
        compare_op: a strict "less" (see `merge_sort_keys`); default ``"less"``.
        descending: compile-time; reverse the order (default False).
        valid_items: how many pairs of the group's tile take part; needs
            `oob_default`. Only the first `valid_items` results are defined.
        oob_default: a key that sorts after every valid key, for the slots past
            `valid_items` (see `merge_sort_keys`); needs `valid_items`.
        temp_storage: a `TempStorage` the scratch comes from (blocks).

    Returns:
        ``(keys, values)``: two `ThreadData` of the inputs' extents and dtypes (or two
        values).

    CUB: ``cub::BlockMergeSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, ValueT, ...>::Sort``,
    ``cub::WarpMergeSort<KeyT, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS, ValueT>::Sort``.

    Example:
        Sort a block's records by a key field, carrying their indices::

            @cuda.jit
            def sort_records(scores, order):
                block = coop.this_block()
                keys = coop.ThreadData(4)
                coop.load(block, scores, keys)
                positions = coop.ThreadData(4, np.int32)
                for i in range(4):
                    positions[i] = cuda.threadIdx.x * 4 + i
                _, moved = coop.merge_sort_pairs(block, keys, positions, descending=True)
                coop.store(block, order, moved)

            scores = np.random.default_rng(5).random(512).astype(np.float32)
            order = np.zeros(512, np.int32)
            sort_records[1, 128](scores, order)  # scores[order] is descending
    """


_TOPK_ARGS = """Args:
        group: `this_block()` of a one-dimensional block.
        keys: a `ThreadData` or local array (blocked) of int8 to int64, uint8 to
            uint64, float16, bfloat16, float32 or float64, or one key per thread. At
            most 65535 keys.{values}
        k: how many keys to select: a runtime integer ``0..tile size`` (0 selects
            nothing; outside the range traps) or a constant ``1..tile size``; the
            same in every thread. Positional or by keyword.
        valid_items: how many keys of the tile take part, ``0..tile size`` (default:
            all); compile-time or runtime.
        begin_bit: the first key bit compared, ``0 <= begin_bit < end_bit``;
            compile-time or runtime, the same in every thread (default 0).
        end_bit: one past the last bit compared, ``<= the key's width`` (default:
            the key's width); compile-time or runtime. Keys are ordered by the bits
            ``[begin_bit, end_bit)`` alone (keys equal there are ties); a runtime
            bit range outside these bounds traps.
        temp_storage: a `TempStorage` the scratch comes from.

    Returns:
        {returns} The first ``min(k, valid_items)`` blocked positions (item ``i`` of
        thread ``t`` is position ``t x items_per_thread + i``) hold the selection, in
        no particular order; the other positions are unspecified. Which of several
        keys equal to the k-th is selected is unspecified."""


def _topk_doc(text: str, pairs: bool) -> str:
    values = (
        "\n        values: a `ThreadData` or local array of the keys' extent, of any dtype; each\n"
        "            selected value is the one that came with its key."
        if pairs
        else ""
    )
    returns = (
        "``(keys, values)``: two `ThreadData` of the inputs' extents and dtypes."
        if pairs
        else "A `ThreadData` of the keys' extent and dtype."
    )
    return text.replace("{args}", _TOPK_ARGS.replace("{values}", values).replace("{returns}", returns)).replace(
        "{order}", _KEY_ORDER
    )


_TOPK_CUB = """CUB: ``cub::detail::block_topk`` (radix selection) where the CCCL in use has it (CCCL
    3.5 does); otherwise a ``cub::BlockRadixSort`` of the tile with the keys past
    `valid_items` sorting last. `coop.explain` shows which."""


@marker("topk", implemented=True)
def topk_min_keys(group, keys, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None):
    """Select the `k` smallest keys of the block's tile; return them as a fresh payload.
    `keys` is left as it was.

    {args}

    {order}

    {cub}

    Example:
        The 8 smallest of each block's 512 keys::

            @cuda.jit
            def smallest(values, out):
                block = coop.this_block()
                keys = coop.ThreadData(4)
                coop.load(block, values, keys)
                chosen = coop.topk_min_keys(block, keys, k=8)
                coop.store(block, out, chosen, valid_items=8)

            values = np.random.default_rng(6).random(512).astype(np.float32)
            out = np.zeros(8, np.float32)
            smallest[1, 128](values, out)  # np.sort(out) == np.sort(values)[:8]
    """


@marker("topk", implemented=True)
def topk_max_keys(group, keys, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None):
    """Select the `k` largest keys of the block's tile; return them as a fresh payload.
    `keys` is left as it was.

    {args}

    {order}

    {cub}

    Example:
        The 8 largest of the first `count` keys::

            @cuda.jit
            def largest(values, count, out):
                block = coop.this_block()
                keys = coop.ThreadData(4)
                coop.load(block, values, keys, valid_items=count, oob_default=0.0)
                chosen = coop.topk_max_keys(block, keys, k=8, valid_items=count)
                coop.store(block, out, chosen, valid_items=8)

            values = np.random.default_rng(7).random(500).astype(np.float32)
            out = np.zeros(8, np.float32)
            largest[1, 128](values, 500, out)  # np.sort(out) == np.sort(values)[-8:]
    """


@marker("topk", implemented=True)
def topk_min_pairs(group, keys, values, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None):
    """Select the `k` smallest keys of the block's tile with their values; return
    ``(keys, values)`` as fresh payloads. The inputs are left as they were.

    {args}

    {order}

    {cub}

    Example:
        Where the 4 smallest keys are::

            @cuda.jit
            def argmin4(values, where):
                block = coop.this_block()
                keys = coop.ThreadData(2)
                coop.load(block, values, keys)
                positions = coop.ThreadData(2, np.int32)
                for i in range(2):
                    positions[i] = cuda.threadIdx.x * 2 + i
                _, chosen = coop.topk_min_pairs(block, keys, positions, k=4)
                coop.store(block, where, chosen, valid_items=4)

            values = np.random.default_rng(8).random(256).astype(np.float32)
            where = np.zeros(4, np.int32)
            argmin4[1, 128](values, where)  # sorted(where) == sorted(np.argsort(values)[:4])
    """


@marker("topk", implemented=True)
def topk_max_pairs(group, keys, values, /, k, *, valid_items=None, begin_bit=None, end_bit=None, temp_storage=None):
    """Select the `k` largest keys of the block's tile with their values; return
    ``(keys, values)`` as fresh payloads. The inputs are left as they were.

    {args}

    {order}

    {cub}

    Example:
        The 4 largest scores and their positions::

            @cuda.jit
            def top4(values, best, where):
                block = coop.this_block()
                keys = coop.ThreadData(2)
                coop.load(block, values, keys)
                positions = coop.ThreadData(2, np.int32)
                for i in range(2):
                    positions[i] = cuda.threadIdx.x * 2 + i
                chosen, found = coop.topk_max_pairs(block, keys, positions, k=4)
                coop.store(block, best, chosen, valid_items=4)
                coop.store(block, where, found, valid_items=4)

            values = np.random.default_rng(9).random(256).astype(np.float32)
            best = np.zeros(4, np.float32)
            where = np.zeros(4, np.int32)
            top4[1, 128](values, best, where)  # values[where] == best
    """


for _function, _pairs in (
    (topk_min_keys, False),
    (topk_max_keys, False),
    (topk_min_pairs, True),
    (topk_max_pairs, True),
):
    _function.__doc__ = _topk_doc(_function.__doc__.replace("{cub}", _TOPK_CUB), _pairs)
del _function, _pairs
