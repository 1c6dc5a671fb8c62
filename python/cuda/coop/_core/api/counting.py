"""Histograms, adjacent differences, discontinuities and run-length decoding."""

from __future__ import annotations

from ..markers import marker


@marker("histogram", implemented=False)
def histogram(group, samples, histogram, /, *, accumulate=False, algorithm="atomic"):
    """Count samples into `histogram` (cub::BlockHistogram)."""


@marker("adjacent_difference", implemented=False)
def subtract_left(group, items, /, op=None, *, output=None, tile_predecessor=None, valid_items=None):
    """Difference with the left neighbour (cub::BlockAdjacentDifference::SubtractLeft)."""


@marker("adjacent_difference", implemented=False)
def subtract_right(group, items, /, op=None, *, output=None, tile_successor=None, valid_items=None):
    """Difference with the right neighbour (cub::BlockAdjacentDifference::SubtractRight)."""


@marker("discontinuity", implemented=False)
def flag_heads(group, flags, items, /, op=None, *, tile_predecessor=None):
    """Flag the first item of each run (cub::BlockDiscontinuity::FlagHeads)."""


@marker("discontinuity", implemented=False)
def flag_tails(group, flags, items, /, op=None, *, tile_successor=None):
    """Flag the last item of each run (cub::BlockDiscontinuity::FlagTails)."""


@marker("discontinuity", implemented=False)
def flag_heads_and_tails(
    group, head_flags, tail_flags, items, /, op=None, *, tile_predecessor=None, tile_successor=None
):
    """Flag both ends of each run (cub::BlockDiscontinuity::FlagHeadsAndTails)."""


@marker("run_length_decode", implemented=False)
def run_length_decode(group, run_values, run_lengths, items, /, *, window_offset=0, relative_offsets=None):
    """Decode one window of runs into `items`; returns the total decoded size."""
