"""Sorting and ranking (CUB BlockRadixSort, BlockRadixRank, BlockMergeSort/WarpMergeSort)."""

from __future__ import annotations

from ..markers import marker


@marker("radix_sort", implemented=False)
def radix_sort(group, keys, /, *, values=None, descending=False, begin_bit=None, end_bit=None, output_layout="blocked"):
    """Radix sort of the group's keys, or of key-value pairs (cub::BlockRadixSort::Sort /
    SortDescending and their BlockedToStriped forms).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        keys: a `ThreadData` of integer or float keys (blocked), sorted in place.
        values: a `ThreadData` of the same extent, permuted with the keys.
        descending: sort largest first; compile-time.
        begin_bit: the first key bit to sort on (default 0).
        end_bit: one past the last key bit (default: the key's width).
        output_layout: ``"blocked"`` (default) or ``"striped"``.

    Returns:
        None.
    """


@marker("radix_rank", implemented=False)
def radix_rank(group, keys, ranks, /, *, begin_bit, end_bit, descending=False, exclusive_digit_prefix=None):
    """The rank of each key by its digit of bits ``[begin_bit, end_bit)``
    (cub::BlockRadixRank::RankKeys).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        keys: a `ThreadData` of unsigned integer keys.
        ranks: a `ThreadData` of int32 of the same extent that receives the ranks.
        begin_bit: the digit's first bit; compile-time.
        end_bit: one past its last bit; at most 8 bits in all.
        descending: rank largest digits first.
        exclusive_digit_prefix: a `ThreadData` that receives each digit's
            exclusive prefix count.

    Returns:
        None.
    """


@marker("merge_sort", implemented=False)
def merge_sort(group, keys, compare, /, *, values=None, valid_items=None, oob_default=None):
    """Merge sort of the group's keys with a strict weak `compare`
    (cub::BlockMergeSort::Sort / cub::WarpMergeSort::Sort).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()` (a power-of-two thread count), `this_warp()` or
            `this_warp().group_by(n)`.
        keys: a `ThreadData` of keys, sorted in place (blocked).
        compare: a Python function ``less(a, b)`` returning a bool.
        values: a `ThreadData` permuted with the keys.
        valid_items: how many keys of the tile take part; the rest are filled
            with `oob_default`.
        oob_default: the key given to the slots past `valid_items`.

    Returns:
        None.
    """
