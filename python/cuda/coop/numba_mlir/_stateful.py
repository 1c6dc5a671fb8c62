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

    This cuda.coop does not plan it yet: a scan given one is refused at compile
    time (`UnsupportedOperationError`). Write the callback as a class whose
    ``__call__(self, block_aggregate)`` returns the prefix and whose state is a
    ``local.array`` given to its constructor (``prefix_op=RunningTotal(total)``).

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
