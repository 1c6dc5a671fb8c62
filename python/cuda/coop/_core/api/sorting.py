"""Sorting and ranking (CUB BlockRadixSort, BlockRadixRank, BlockMergeSort/WarpMergeSort)."""

from __future__ import annotations

from ..markers import marker


@marker("radix_sort", implemented=False)
def radix_sort(group, keys, /, *, values=None, descending=False, begin_bit=None, end_bit=None, output_layout="blocked"):
    """Radix sort of keys (or pairs with `values`) across the group."""


@marker("radix_rank", implemented=False)
def radix_rank(group, keys, ranks, /, *, begin_bit, end_bit, descending=False, exclusive_digit_prefix=None):
    """Rank keys by the digit in [begin_bit, end_bit) (cub::BlockRadixRank::RankKeys)."""


@marker("merge_sort", implemented=False)
def merge_sort(group, keys, compare, /, *, values=None, valid_items=None, oob_default=None):
    """Merge sort with a strict weak `compare` (cub::BlockMergeSort / cub::WarpMergeSort)."""
