"""Load, store, exchange and shuffle (CUB BlockLoad/WarpLoad, BlockStore/WarpStore,
BlockExchange/WarpExchange, BlockShuffle)."""

from __future__ import annotations

from ..markers import marker


@marker("load_store", implemented=True)
def load(
    group, source, items, /, *, algorithm="direct", valid_items=None, oob_default=None, offset=None, temp_storage=None
):
    """Load a tile of `source` into each thread's `items` (cub::BlockLoad / cub::WarpLoad).

    The tile starts at `source` (+ `offset` elements). With `valid_items`, only that
    many tile elements are read; the rest of `items` holds `oob_default` when given
    and is unspecified otherwise. `source` may be a view of any strides or dimensions
    (`values[::2]`, `image[16:32, 8:24]`, a Fortran-order array): its elements are
    taken in C order. Every thread of the group must reach the call. Returns None."""


@marker("load_store", implemented=True)
def store(group, destination, items, /, *, algorithm="direct", valid_items=None, offset=None, temp_storage=None):
    """Store each thread's `items` as a tile at `destination` (cub::BlockStore /
    cub::WarpStore). Transposing algorithms may rearrange `items` in place, as in
    CUB. With `valid_items`, only that many tile elements are written. `destination`
    may be a view of any strides or dimensions, written in C order. Returns None."""


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

    `mode` names the conversion: "striped_to_blocked" (the default) and
    "blocked_to_striped" for every group; "warp_striped_to_blocked",
    "blocked_to_warp_striped", "scatter_to_blocked", "scatter_to_striped_guarded" and
    "scatter_to_striped_flagged" for blocks; "scatter_to_striped" for blocks and warps.
    The scatters place item i of each thread at tile position `ranks[i]` (an int32
    payload of the same extent): every rank must lie in the tile (a bad one traps),
    except that "..._guarded" skips negative ranks and "..._flagged" skips items whose
    `valid_flags[i]` (a bool payload) is False; tile positions nobody writes are
    unspecified. `warp_time_slicing=True` (blocks) reuses one warp's scratch for the
    whole block, trading time for shared memory. Every thread of the group must reach
    the call. Returns a ThreadData of `value`'s extent and dtype."""


@marker("shuffle", implemented=True)
def shuffle(group, value, /, *, mode="down", distance=1, block_suffix_output=None, block_prefix_output=None):
    """Move items between the block's threads (cub::BlockShuffle) and return the result
    as a fresh payload or value; `value` is left as it was.

    On a ThreadData (blocked arrangement), mode "down" (the default) shifts the tile
    down by one item: item i of the result is the tile's item i + 1; "up" shifts it up:
    item i is the tile's item i - 1. The vacated end (the last item of the last thread
    for "down", the first item of thread 0 for "up") keeps the thread's own input.
    `block_prefix_output` ("down") and `block_suffix_output` ("up"), one-item arrays,
    receive the tile's first and last item in every thread. On one value per thread,
    "offset" returns the value of the thread `distance` ranks away (any int, runtime or
    constant; a rank outside the block returns the thread's own value) and "rotate" the
    same with wrap-around (0 <= distance < block threads). Block groups only."""
