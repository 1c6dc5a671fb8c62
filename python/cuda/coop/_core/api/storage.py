"""Per-thread payloads and explicit shared scratch."""

from __future__ import annotations

from ..markers import Marker, host_call_error


class ThreadData:
    """A fixed per-thread array of `items_per_thread` values. `dtype` may be left
    out and inferred from the primitive that first uses it; `alignment` is a
    minimum power-of-two alignment in bytes for its storage."""

    __coop_marker__ = Marker("ThreadData", "storage", True)

    def __new__(cls, items_per_thread, dtype=None, *, alignment=None):
        raise host_call_error("ThreadData")


class TempStorage:
    """Scratch shared by the primitives that name it with `temp_storage=`.
    sharing="reuse" overlaps consumers and inserts the barrier between uses;
    sharing="exclusive" gives each its own slice and needs no barrier."""

    __coop_marker__ = Marker("TempStorage", "storage", True)

    def __new__(cls, *, sharing="reuse"):
        raise host_call_error("TempStorage")
