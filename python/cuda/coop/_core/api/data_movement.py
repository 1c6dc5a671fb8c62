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


@marker("exchange", implemented=False)
def exchange(group, items, /, *, conversion, output=None, ranks=None, valid_flags=None, temp_storage=None):
    """Rearrange items across the group (cub::BlockExchange / cub::WarpExchange)."""


@marker("shuffle", implemented=False)
def shuffle_offset(group, value, /, *, distance=1):
    """The value of the thread `distance` ranks away (cub::BlockShuffle::Offset)."""


@marker("shuffle", implemented=False)
def shuffle_rotate(group, value, /, *, distance=1):
    """The value of the thread `distance` ranks away, wrapping (cub::BlockShuffle::Rotate)."""


@marker("shuffle", implemented=False)
def shuffle_up(group, items, /, *, output=None, block_suffix=None):
    """Shift items up by one across the group (cub::BlockShuffle::Up)."""


@marker("shuffle", implemented=False)
def shuffle_down(group, items, /, *, output=None, block_prefix=None):
    """Shift items down by one across the group (cub::BlockShuffle::Down)."""
