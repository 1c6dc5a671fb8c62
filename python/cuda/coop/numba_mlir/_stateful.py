"""StatefulFunction: a prefix callback with explicit state (the seed's qualified API)."""

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
    array of `dtype`; the first warp calls `op` with it and the block's
    aggregate, and lane 0's result seeds the scan. Make the StatefulFunction
    outside the kernel (a global or closure variable): it is a compile-time
    value. Blocks only, as CUB's block prefix callbacks are.

    Args:
        op: the callback.
        dtype: the state's dtype.
        name: an optional symbol hint.

    Example:
        ::

            sf = StatefulFunction(running_total, np.int32)
    """

    op: object
    dtype: object
    name: str | None = None
