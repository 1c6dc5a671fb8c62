"""Load, store, exchange and shuffle (CUB BlockLoad/WarpLoad, BlockStore/WarpStore,
BlockExchange/WarpExchange, BlockShuffle)."""

from __future__ import annotations

from ..markers import marker


@marker("load_store", implemented=True)
def load(
    group, source, items, /, *, algorithm="direct", valid_items=None, oob_default=None, offset=None, temp_storage=None
):
    """Load a tile of `source` into each thread's `items` (cub::BlockLoad / cub::WarpLoad).

    The group's tile is ``threads x items_per_thread`` consecutive elements of
    `source`, starting at `offset`. For a warp group, warp ``g`` of the block (its
    x-major rank divided by the warp width) takes the tile after those of warps
    ``0..g-1``: pass the block's origin only. Every thread of the group must reach
    the call, except with the storage-free algorithms (``direct``, ``striped``,
    ``vectorize``), which move only the calling thread's items.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        source: a device array (or a kernel's shared or local array) of int8 to
            int64, uint8 to uint64, float16, bfloat16, float32, float64, complex64
            or complex128. A view of any strides or dimensions (``values[::2]``,
            ``image[16:32, 8:24]``, a Fortran-order array) is read in C order.
        items: the thread's `ThreadData` (its dtype, when left out, is the
            source's) or a local array of compile-time length; it receives the
            items in the blocked arrangement, or striped with ``algorithm="striped"``.
        algorithm: ``"direct"`` (default: each thread reads its own consecutive
            items), ``"striped"``, ``"vectorize"`` (vector loads where the
            address is aligned, else direct), ``"transpose"`` (coalesced striped
            reads, then a transpose through scratch), ``"warp_transpose"`` and
            ``"warp_transpose_timesliced"`` (the same per warp; blocks only).
            Warp groups take the first four. A compile-time string.
        valid_items: how many elements of the tile exist, ``0 <= valid_items <=
            tile size``; a compile-time or runtime integer, the same in every
            thread of the group. Elements past it are not read.
        oob_default: the value the slots past `valid_items` receive (they are
            left unchanged without it); a compile-time or runtime value of the
            payload's dtype. Needs `valid_items`.
        offset: the tile's first element in `source`, ``>= 0``; a compile-time
            or runtime integer, the same in every thread of the group.
        temp_storage: a `TempStorage` the scratch of the transposing algorithms
            comes from; by default cuda.coop provides it (see the guide on scratch).

    Returns:
        `items`, filled in place (``loaded = coop.load(...)`` is that same payload).

    CUB: ``cub::BlockLoad<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::Load`` for a block, ``cub::WarpLoad<T, ITEMS_PER_THREAD,
    ALGORITHM, LOGICAL_WARP_THREADS>::Load`` for a warp; with `valid_items` the
    guarded overloads.

    Example:
        Each block loads its 512-element tile, 4 items per thread::

            @cuda.jit
            def load_tiles(values, firsts):
                block = coop.this_block()
                items = coop.ThreadData(4)
                coop.load(block, values, items, algorithm="transpose", offset=cuda.blockIdx.x * 512)
                firsts[cuda.blockIdx.x * 128 + cuda.threadIdx.x] = items[0]

            values = np.arange(4 * 512, dtype=np.float32)
            firsts = np.zeros(4 * 128, dtype=np.float32)
            load_tiles[4, 128](values, firsts)
    """


@marker("load_store", implemented=True)
def store(group, destination, items, /, *, algorithm="direct", valid_items=None, offset=None, temp_storage=None):
    """Store each thread's `items` as a tile of `destination` (cub::BlockStore / cub::WarpStore).

    The mirror of `load`: the group's tile of ``threads x items_per_thread``
    elements is written at `offset` (for a warp group, after the tiles of the
    warps before it). Every thread of the group must reach the call, except with
    ``direct``, ``striped`` and ``vectorize``.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        destination: a device array (or a kernel's shared or local array) of a
            dtype `load` takes; a view of any strides or dimensions is written
            in C order.
        items: the thread's `ThreadData` or local array, of the destination's
            dtype, in the blocked arrangement (striped with ``"striped"``), or
            one value per thread as a scalar of that dtype (a number written
            here takes the destination's dtype, if it holds the number exactly).
            The items are left as they were, with every algorithm (CUB's
            transposing stores rearrange their array; this one stores a copy).
        algorithm: as for `load`: ``"direct"`` (default), ``"striped"``,
            ``"vectorize"``, ``"transpose"``, ``"warp_transpose"``,
            ``"warp_transpose_timesliced"`` (the last two for blocks only).
        valid_items: how many elements of the tile to write, from its start; a
            compile-time or runtime integer, the same in every thread of the group.
        offset: the tile's first element in `destination`, ``>= 0``; a
            compile-time or runtime integer.
        temp_storage: a `TempStorage` for the transposing algorithms' scratch.

    Returns:
        None.

    CUB: ``cub::BlockStore<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y,
    BLOCK_DIM_Z>::Store``, ``cub::WarpStore<T, ITEMS_PER_THREAD, ALGORITHM,
    LOGICAL_WARP_THREADS>::Store``.

    Example:
        A copy of the first 1000 elements, in tiles of 256 with a partial last one::

            @cuda.jit
            def copy(source, destination, n):
                block = coop.this_block()
                items = coop.ThreadData(2)
                offset = cuda.blockIdx.x * 256
                valid = min(n - offset, 256)
                coop.load(block, source, items, valid_items=valid, offset=offset)
                coop.store(block, destination, items, valid_items=valid, offset=offset)

            source = np.arange(1000, dtype=np.int64)
            destination = np.zeros_like(source)
            copy[4, 128](source, destination, 1000)
    """


@marker("exchange", implemented=True)
def exchange(
    group,
    value,
    /,
    *,
    mode="striped_to_blocked",
    ranks=None,
    valid_flags=None,
    warp_time_slicing=False,
    temp_storage=None,
):
    """Rearrange the group's tile between arrangements (cub::BlockExchange /
    cub::WarpExchange) and return the result as a fresh payload; `value` is left as it was.

    Every thread of the group must reach the call.

    Args:
        group: `this_block()`, `this_warp()` or `this_warp().group_by(n)`.
        value: the thread's `ThreadData` or local array, of any payload dtype.
        mode: the conversion, a compile-time string. ``"striped_to_blocked"``
            (default) and ``"blocked_to_striped"`` for every group;
            ``"warp_striped_to_blocked"``, ``"blocked_to_warp_striped"``,
            ``"scatter_to_blocked"``, ``"scatter_to_striped_guarded"`` and
            ``"scatter_to_striped_flagged"`` for blocks; ``"scatter_to_striped"``
            for blocks and warps. The scatters place item ``i`` of each thread at
            tile position ``ranks[i]``; tile positions nobody writes are unspecified.
        ranks: for the scatters, an int32 payload of `value`'s extent. Every rank
            must lie in the tile (a bad one traps), except that
            ``"scatter_to_striped_guarded"`` skips negative ranks.
        valid_flags: for ``"scatter_to_striped_flagged"``, a bool payload of
            `value`'s extent: items whose flag is False are skipped.
        warp_time_slicing: blocks only, compile-time: reuse one warp's scratch for
            the whole block, trading time for shared memory.
        temp_storage: a `TempStorage` for the scratch.

    Returns:
        A `ThreadData` of `value`'s extent and dtype holding the rearranged tile.

    CUB: ``cub::BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, WARP_TIME_SLICING,
    BLOCK_DIM_Y, BLOCK_DIM_Z>::StripedToBlocked`` (and the method of each mode);
    ``cub::WarpExchange<T, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS>``.

    Example:
        A coalesced striped load, then the blocked arrangement a scan needs::

            @cuda.jit
            def scan_striped(values, sums):
                block = coop.this_block()
                striped = coop.ThreadData(4)
                coop.load(block, values, striped, algorithm="striped")
                items = coop.exchange(block, striped, mode="striped_to_blocked")
                coop.store(block, sums, coop.inclusive_sum(block, items))

            values = np.ones(512, dtype=np.int32)
            sums = np.zeros_like(values)
            scan_striped[1, 128](values, sums)

        Reversing a tile with a scatter::

            @cuda.jit
            def reverse(values, out):
                block = coop.this_block()
                items = coop.ThreadData(2)
                coop.load(block, values, items)
                ranks = coop.ThreadData(2, np.int32)
                for i in range(2):
                    ranks[i] = 255 - (cuda.threadIdx.x * 2 + i)
                reversed_items = coop.exchange(block, items, mode="scatter_to_blocked", ranks=ranks)
                coop.store(block, out, reversed_items)

            values = np.arange(256, dtype=np.float32)
            out = np.zeros_like(values)
            reverse[1, 128](values, out)
    """


@marker("shuffle", implemented=True)
def shuffle(group, value, /, *, mode="down", distance=1, block_suffix_output=None, block_prefix_output=None):
    """Move items between the block's threads (cub::BlockShuffle) and return the result
    as a fresh payload or value; `value` is left as it was.

    Every thread of the block must reach the call.

    Args:
        group: `this_block()` (block groups only).
        value: a `ThreadData` or local array (blocked arrangement) for ``"up"`` and
            ``"down"``; one value per thread for ``"offset"`` and ``"rotate"``
            (or a tuple of scalars, a record, moved whole and returned as a tuple).
        mode: a compile-time string. ``"down"`` (default) shifts the tile down by
            one item: item ``i`` of the result is the tile's item ``i + 1``.
            ``"up"`` shifts it up: item ``i`` is the tile's item ``i - 1``. The
            vacated end (the last item of the last thread for ``"down"``, the first
            item of thread 0 for ``"up"``) keeps the thread's own input.
            ``"offset"`` returns the value of the thread `distance` ranks away (a
            rank outside the block returns the thread's own value); ``"rotate"``
            the same with wrap-around.
        distance: for ``"offset"``, any int; for ``"rotate"``, ``1 <= distance <
            block threads``; compile-time or runtime.
        block_suffix_output: with ``"up"``, a one-item array that receives the
            tile's last item, in every thread.
        block_prefix_output: with ``"down"``, a one-item array that receives the
            tile's first item, in every thread.

    Returns:
        For ``"up"`` and ``"down"`` a `ThreadData` of `value`'s extent and dtype;
        for ``"offset"`` and ``"rotate"`` the other thread's value.

    CUB: ``cub::BlockShuffle<T, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>::Down``,
    ``::Up``, ``::Offset`` and ``::Rotate``.

    Example:
        The difference with the next thread's value, and a tile shifted down::

            @cuda.jit
            def neighbours(values, differences, shifted, first):
                block = coop.this_block()
                mine = values[cuda.threadIdx.x]
                after = coop.shuffle(block, mine, mode="offset", distance=1)
                differences[cuda.threadIdx.x] = after - mine
                items = coop.ThreadData(4)
                coop.load(block, values, items)
                later = coop.shuffle(block, items, mode="down", block_prefix_output=first)
                coop.store(block, shifted, later)

            values = np.arange(512, dtype=np.int32)
            differences = np.zeros(128, dtype=np.int32)
            shifted = np.zeros_like(values)
            first = np.zeros(1, dtype=np.int32)
            neighbours[1, 128](values, differences, shifted, first)
    """
