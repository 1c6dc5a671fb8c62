"""The algorithm selectors of the qualified namespace as IntEnums, numbered as CUB's
enums are. A selector option takes a member as it takes its lowercase name:
`algorithm=BlockLoadAlgorithm.WARP_TRANSPOSE` is `algorithm="warp_transpose"`."""

from __future__ import annotations

from enum import IntEnum


class BlockLoadAlgorithm(IntEnum):
    """`coop.load`'s block algorithms (cub::BlockLoadAlgorithm)."""

    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5


class BlockStoreAlgorithm(IntEnum):
    """`coop.store`'s block algorithms (cub::BlockStoreAlgorithm)."""

    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3
    WARP_TRANSPOSE = 4
    WARP_TRANSPOSE_TIMESLICED = 5


class WarpLoadAlgorithm(IntEnum):
    """`coop.load`'s warp algorithms (cub::WarpLoadAlgorithm)."""

    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3


class WarpStoreAlgorithm(IntEnum):
    """`coop.store`'s warp algorithms (cub::WarpStoreAlgorithm)."""

    DIRECT = 0
    STRIPED = 1
    VECTORIZE = 2
    TRANSPOSE = 3


class BlockScanAlgorithm(IntEnum):
    """The scans' block algorithms (cub::BlockScanAlgorithm); WARP_SCAN is another name of WARP_SCANS."""

    RAKING = 0
    RAKING_MEMOIZE = 1
    WARP_SCANS = 2
    WARP_SCAN = 2


class BlockReduceAlgorithm(IntEnum):
    """`coop.reduce`'s and `coop.sum`'s block algorithms (cub::BlockReduceAlgorithm)."""

    RAKING_COMMUTATIVE_ONLY = 0
    RAKING = 1
    WARP_REDUCTIONS = 2


class BlockHistogramAlgorithm(IntEnum):
    """`coop.histogram`'s algorithms (cub::BlockHistogramAlgorithm)."""

    SORT = 0
    ATOMIC = 1


ENUMS = (
    BlockLoadAlgorithm,
    BlockStoreAlgorithm,
    WarpLoadAlgorithm,
    WarpStoreAlgorithm,
    BlockScanAlgorithm,
    BlockReduceAlgorithm,
    BlockHistogramAlgorithm,
)


def selector(value):
    """The selector string a member stands for ("warp_transpose"), else None."""
    if isinstance(value, IntEnum) and type(value) in ENUMS:
        return value.name.lower()
    return None
