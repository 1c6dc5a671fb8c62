"""Reductions and scans (CUB BlockReduce/WarpReduce, BlockScan/WarpScan).

Beyond API.md's signatures, the reductions and scans that have block forms take
`temp_storage=` last, as load and store do: API.md's TempStorage row names every
primitive with scratch, and sequential reductions are where "exclusive" sharing
pays (no barrier between them)."""

from __future__ import annotations

from ..markers import marker


@marker("reduce", implemented=True)
def reduce(group, items, op, /, *, valid_items=None, algorithm="warp_reductions", temp_storage=None):
    """Reduce with `op`; the result is valid in thread 0 / lane 0 only."""


@marker("reduce", implemented=True)
def sum(group, items, /, *, valid_items=None, algorithm="warp_reductions", temp_storage=None):
    """Sum; the result is valid in thread 0 / lane 0 only."""


@marker("reduce", implemented=True)
def segmented_reduce(warp, value, flag, op, /, *, flags="heads"):
    """Warp segmented reduction (cub::WarpReduce::Head/TailSegmentedReduce)."""


@marker("scan", implemented=True)
def inclusive_sum(
    group, items, /, *, output=None, block_aggregate=None, prefix_op=None, algorithm="raking", temp_storage=None
):
    """Inclusive prefix sum (cub::BlockScan::InclusiveSum).

    `prefix_op` (block groups): an object made in the kernel, `Cls(state, ...)`,
    whose class defines `__call__(self, block_aggregate)`; the first warp calls it
    with the block's total and the scan is seeded with lane 0's return value. Its
    state is one `cuda.local.array` given to the constructor; its other attributes
    must be compile-time numbers. Not with `block_aggregate`."""


@marker("scan", implemented=True)
def exclusive_sum(
    group, items, /, *, output=None, block_aggregate=None, prefix_op=None, algorithm="raking", temp_storage=None
):
    """Exclusive prefix sum (cub::BlockScan::ExclusiveSum); `prefix_op` as for inclusive_sum."""


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
    """Inclusive scan with `op` (cub::BlockScan::InclusiveScan); `prefix_op` as for inclusive_sum, not
    with `initial_value`."""


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
    """Exclusive scan with `op` (cub::BlockScan::ExclusiveScan); `prefix_op` as for inclusive_sum, not
    with `initial_value`."""


@marker("scan", implemented=True)
def broadcast(warp, value, src_lane, /):
    """`value` of lane `src_lane` (cub::WarpScan::Broadcast)."""
