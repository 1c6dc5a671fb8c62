"""Records: a tuple of scalars (`(s, sq)`, a Welford triple) as one payload value. The
engine names each by its fields ("record(int32,float32,float32)") and lays it out by C's
rules (its generated struct checks NVRTC agrees); here the kernel compiler's side: the
tuple type a record is in the kernel, and the layout its fields are written at when a
record crosses the provider's ABI by pointer."""

from __future__ import annotations

import dataclasses
import functools

from numba_cuda_mlir import types
from numba_cuda_mlir.extending import intrinsic
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


def scalar_type(name: str):
    """The Numba type of a scalar dtype of the engine's (a record's field)."""
    if name == "bool":
        return types.boolean
    if name == "bfloat16":
        return types.bf16  # numba-cuda-mlir's name for it
    return getattr(types, name)


def numba_type(dtype: str):
    """The tuple type a record is in the kernel."""
    return types.Tuple([scalar_type(field) for field in layout(dtype).fields])


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


# A NumPy structured dtype (numba's Record) as a record: its fields scalars, laid out where
# C lays out a struct of them, so the provider's struct reads what the kernel wrote.


def record_of_structured(record, scalar_name) -> str | None:
    """The record a Numba Record (a NumPy structured dtype) is, or None: see refused_structured."""
    if not isinstance(record, types.Record) or refused_structured(record, scalar_name) is not None:
        return None
    return _engine.record_dtype([scalar_name(record.typeof(name)) for name in record.fields])


def refused_structured(record, scalar_name) -> str | None:
    """Why a structured dtype is no record, for a message; None when it is one (or not a Record).
    Its size, alignment and field offsets are checked against the engine's layout of its fields."""
    if not isinstance(record, types.Record):
        return None
    names = list(record.fields)
    fields = [scalar_name(record.typeof(name)) for name in names]
    odd = [f"'{name}' ({record.typeof(name)})" for name, field in zip(names, fields) if field is None]
    if odd or not 1 <= len(names) <= 16:
        why = f"field {', '.join(odd)}" if odd else f"{len(names)} fields"
        return (
            f"a structured dtype with {why}: a record holds 1 to 16 fields, each a scalar (bool, int8-int64, "
            "uint8-uint64, float16, float32, float64, complex64, complex128)"
        )
    engine = layout(_engine.record_dtype(fields))
    offsets = tuple(record.offset(name) for name in names)
    if (offsets != engine.offsets or record.size != engine.size) and "complex128" in fields:
        return (
            "a structured dtype with a complex128 field: NumPy aligns complex128 to 8 bytes and the C++ "
            "type (cuda::std::complex<double>) to 16, so no NumPy layout matches; hold it as two float64 fields"
        )
    if offsets != engine.offsets or record.size != engine.size:
        return (
            f"a structured dtype laid out at offsets {list(offsets)} in {record.size} bytes, where C lays its fields "
            f"out at {list(engine.offsets)} in {engine.size}: make it with np.dtype([...], align=True)"
        )
    return None


def element_type(dtype: str, element=None):
    """The Numba type of one item of a payload of records: the structured dtype it was typed by
    (`element`), else one whose fields f0, f1, ... sit at the engine's offsets."""
    if element is not None:
        return element
    found = layout(dtype)
    fields = [
        (f"f{index}", {"type": scalar_type(field), "offset": offset, "alignment": None, "title": None})
        for index, (field, offset) in enumerate(zip(found.fields, found.offsets))
    ]
    return types.Record(fields, found.size, True)


def local_array(scope, length, dtype, loc, *, target, alignment=None, element=None):
    """Statements making a payload's local array: of a scalar dtype, cuda.local.array; of
    records (which the kernel compiler does not make local arrays of), bytes at the record's
    alignment viewed as `length` records by `as_records`."""
    from . import _ir

    if not is_record(dtype):
        return _ir.array(scope, "local", length, dtype, loc, target=target, alignment=alignment)[0]
    found = layout(dtype)
    # The kernel compiler's local arrays take multiples of 8; less is met by 8.
    aligned = max(alignment or 1, found.alignment, 8)
    statements, raw = _ir.array(scope, "local", length * found.size, "uint8", loc, alignment=aligned)
    view, item = _ir.new_var(scope, "as_records", loc), _ir.new_var(scope, "record_type", loc)
    record = element_type(dtype, element)
    return statements + [
        _ir.ir.Assign(_ir.ir.Global("as_records", as_records, loc), view, loc),
        _ir.ir.Assign(_ir.ir.Global("record_type", record, loc), item, loc),  # typed as its TypeRef
        _ir.ir.Assign(_ir.ir.Expr.call(view, (raw, item), (), loc), target, loc),
    ]


@intrinsic
def as_records(typingctx, raw, record):
    """A local byte array viewed as the records it holds (a 1-D C array of `record`): the
    kernel compiler keeps an array of records as bytes and indexes them by their size."""
    if not isinstance(record, types.TypeRef) or not isinstance(record.instance_type, types.Record):
        return None
    item = record.instance_type
    viewed = types.Array(item, 1, "C")

    def codegen(builder, target, args, kwargs):
        from numba_cuda_mlir._mlir import ir as mlir
        from numba_cuda_mlir._mlir.dialects import arith, builtin, llvm
        from numba_cuda_mlir._mlir.extras import types as T
        from numba_cuda_mlir.lowering_utilities import memref_data_pointer, memref_descriptor_type

        array = builder.load_var(args[0])
        pointer = memref_data_pointer(array)
        count = mlir.MemRefType(array.type).shape[0] // item.size  # the rewrite made it of a constant length

        def filled(descriptor, value, *position):
            return llvm.insertvalue(container=descriptor, value=value, position=mlir.DenseI64ArrayAttr.get(position))

        descriptor = llvm.UndefOp(memref_descriptor_type(1)).result
        descriptor = filled(filled(descriptor, pointer, 0), pointer, 1)
        descriptor = filled(descriptor, arith.constant(T.i64(), 0), 2)
        descriptor = filled(descriptor, arith.constant(T.i64(), count), 3, 0)
        descriptor = filled(descriptor, arith.constant(T.i64(), 1), 4, 0)  # strides count records
        builder.store_var(target, builtin.unrealized_conversion_cast([builder.get_mlir_type(viewed)], [descriptor]))

    return viewed(raw, record), codegen
