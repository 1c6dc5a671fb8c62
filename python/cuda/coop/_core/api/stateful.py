"""StatefulFunction: a prefix callback with explicit state (the seed's; in the root and
the qualified namespace)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class StatefulFunction:
    """A block-scan prefix callback and the dtype of its one-item state.

    ``op(state, block_aggregate) -> prefix`` is a ``@cuda.jit(device=True)``
    function (or a class whose ``__call__`` takes the state first); `dtype` is
    the state's element type, which may differ from the scanned one; `name` is
    a hint for the generated symbol. The seed passes the state as a third
    positional operand of the scan (``exclusive_sum(block, x, state,
    prefix_op=sf)``).

    The state is the scan's third operand, a one-item `ThreadData` or local
    array of `dtype` (for a scan of tuples, one item per value the op keeps:
    the pair of a selective scan); the first warp calls `op` with it and the block's
    aggregate, and lane 0's result seeds the scan. It is a compile-time value:
    make it outside the kernel (a global or closure variable) or inside it from
    compile-time arguments (a device function, a NumPy dtype, a string). The
    state carries across calls, so a loop over tiles scans the whole array
    (see the prefix callbacks guide). Blocks only, as CUB's block prefix
    callbacks are.

    Args:
        op: the callback.
        dtype: the state's dtype.
        name: an optional symbol hint.

    Example:
        ::

            @cuda.jit(device=True)
            def running_total(state, block_aggregate):
                before = state[0]
                state[0] = before + block_aggregate
                return before

            carry = coop.StatefulFunction(running_total, np.int32)

            @cuda.jit
            def scan_tiles(values, out, tiles):
                block = coop.this_block()
                state = coop.ThreadData(1, dtype=np.int32)
                state[0] = 0
                for tile in range(tiles):
                    items = coop.load(block, values, coop.ThreadData(4), offset=tile * 512)
                    scanned = coop.exclusive_sum(block, items, state, prefix_op=carry)
                    coop.store(block, out, scanned, offset=tile * 512)

            values = np.ones(3 * 512, np.int32)
            out = np.zeros_like(values)
            scan_tiles[1, 128](values, out, 3)  # out == 0, 1, ..., 1535
    """

    op: object
    dtype: object
    name: str | None = None
