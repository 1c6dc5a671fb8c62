"""Records: a tuple of scalars (`(s, sq)`, a Welford triple) as one payload value. The
engine names each by its fields ("record(int32,float32,float32)") and lays it out by C's
rules (its generated struct checks NVRTC agrees); here the kernel compiler's side: the
tuple type a record is in the kernel, and the layout its fields are written at when a
record crosses the provider's ABI by pointer."""

from __future__ import annotations

import dataclasses
import functools

from numba_cuda_mlir import types
from numba_cuda_mlir.numba_cuda.types.misc import unliteral

from .. import _engine

RECORD_PREFIX = "record("


@dataclasses.dataclass(frozen=True)
class Layout:
    fields: tuple[str, ...]  # the engine's scalar dtype names, in order
    offsets: tuple[int, ...]
    size: int
    alignment: int


def is_record(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith(RECORD_PREFIX)


@functools.cache
def layout(dtype: str) -> Layout:
    found = _engine.record_layout(dtype)
    return Layout(tuple(found["fields"]), tuple(found["offsets"]), found["size"], found["alignment"])


def record_of_tuple(numba_type, scalar_name) -> str | None:
    """The record a tuple of scalars is ("record(float32,float32)"), or None: a tuple with a
    field that is no scalar dtype (`scalar_name` gives each field's), or none or too many fields."""
    if not isinstance(numba_type, types.BaseTuple) or isinstance(numba_type, types.BaseNamedTuple):
        return None
    fields = [scalar_name(unliteral(field)) for field in numba_type.types]
    if not fields or any(field is None for field in fields):
        return None
    return _engine.record_dtype(fields)


def numba_type(dtype: str, scalar):
    """The tuple type a record is in the kernel: `scalar` gives each field's Numba type."""
    return types.Tuple([scalar(field) for field in layout(dtype).fields])


def refused_tuple(numba_type) -> str | None:
    """Why a tuple is no record, for a message; None when it is not a tuple."""
    if not isinstance(numba_type, types.BaseTuple):
        return None
    count = len(numba_type.types)
    if count == 0:
        return "an empty tuple"
    if count > 16:
        return f"a tuple of {count} fields (a record holds at most 16)"
    return (
        f"a tuple of {numba_type}: a record's fields are scalars (bool, int8-int64, uint8-uint64, float16, "
        "bfloat16, float32, float64, complex64, complex128)"
    )
