"""Histograms, adjacent differences, discontinuities and run-length decoding."""

from __future__ import annotations

from ..markers import marker


@marker("histogram", implemented=False)
def histogram(group, samples, histogram, /, *, accumulate=False, algorithm="atomic"):
    """Count the group's samples into the bins of `histogram` (cub::BlockHistogram::Histogram /
    Composite).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        samples: a `ThreadData` of unsigned integer samples in ``[0, bins)``.
        histogram: a shared array of ``bins`` counters.
        accumulate: add to the counters (``Composite``) instead of setting them.
        algorithm: ``"atomic"`` (default) or ``"sort"``.

    Returns:
        None.
    """


@marker("adjacent_difference", implemented=False)
def subtract_left(group, items, /, op=None, *, output=None, tile_predecessor=None, valid_items=None):
    """Each item minus its left neighbour in the tile (cub::BlockAdjacentDifference::SubtractLeft).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        items: a `ThreadData` (blocked).
        op: the difference, ``op(item, neighbour)``; default subtraction.
        output: a `ThreadData` that receives the differences instead of `items`.
        tile_predecessor: the item before the tile's first, for a tile that is not the first
            one; without it that item is copied.
        valid_items: how many items of the tile take part.

    Returns:
        None.
    """


@marker("adjacent_difference", implemented=False)
def subtract_right(group, items, /, op=None, *, output=None, tile_successor=None, valid_items=None):
    """Each item minus its right neighbour in the tile (cub::BlockAdjacentDifference::SubtractRight).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        items: a `ThreadData` (blocked).
        op: the difference, ``op(item, neighbour)``; default subtraction.
        output: a `ThreadData` that receives the differences instead of `items`.
        tile_successor: the item after the tile's last, for a tile that is not the first
            (last) one; without it that item is copied.
        valid_items: how many items of the tile take part.

    Returns:
        None.
    """


@marker("discontinuity", implemented=False)
def flag_heads(group, flags, items, /, op=None, *, tile_predecessor=None):
    """Flag the first item of each run of equal items (cub::BlockDiscontinuity::FlagHeads).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        flags: a `ThreadData` that receives the flags.
        items: a `ThreadData` (blocked).
        op: ``op(a, b)``, true where `a` and `b` differ; default ``!=``.
        tile_predecessor: the item before the tile.

    Returns:
        None.
    """


@marker("discontinuity", implemented=False)
def flag_tails(group, flags, items, /, op=None, *, tile_successor=None):
    """Flag the last item of each run of equal items (cub::BlockDiscontinuity::FlagTails).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        flags: a `ThreadData` that receives the flags.
        items: a `ThreadData` (blocked).
        op: ``op(a, b)``, true where `a` and `b` differ; default ``!=``.
        tile_successor: the item after the tile.

    Returns:
        None.
    """


@marker("discontinuity", implemented=False)
def flag_heads_and_tails(
    group, head_flags, tail_flags, items, /, op=None, *, tile_predecessor=None, tile_successor=None
):
    """Flag both ends of each run of equal items (cub::BlockDiscontinuity::FlagHeadsAndTails).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        head_flags: a `ThreadData` that receives the head flags.
        tail_flags: a `ThreadData` that receives the tail flags.
        items: a `ThreadData` (blocked).
        op: ``op(a, b)``, true where `a` and `b` differ; default ``!=``.
        tile_predecessor: the item before the tile.
        tile_successor: the item after the tile.

    Returns:
        None.
    """


@marker("run_length_decode", implemented=False)
def run_length_decode(group, run_values, run_lengths, items, /, *, window_offset=0, relative_offsets=None):
    """Decode one window of a run-length encoded tile into `items`
    (cub::BlockRunLengthDecode::RunLengthDecode).

    Not available yet: the call is declared so that kernels can be written
    against it, and compiling a kernel that calls it raises
    `UnsupportedOperationError` until its family lands.

    Args:
        group: `this_block()`.
        run_values: a `ThreadData` of the runs' values (blocked).
        run_lengths: a `ThreadData` of the runs' lengths.
        items: a `ThreadData` that receives the decoded window.
        window_offset: where the window starts in the decoded sequence.
        relative_offsets: a `ThreadData` that receives each item's offset within its run.

    Returns:
        The total decoded size of the tile.
    """
