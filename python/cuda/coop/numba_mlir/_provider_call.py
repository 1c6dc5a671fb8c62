"""The one device call every rewritten primitive becomes:

    coop_provider_call("<symbol>", operand, ...)

The literal symbol selects a provider registered by the planner. Codegen emits
`i32 symbol(ptr ret, operands...)` (the Numba ABI of the engine's wrappers):
arrays as generic pointers to their first element (local, shared or global;
slice offsets included), a strided view's extents and strides and a sized
array's element count read from its descriptor, scalars converted to the ABI's
value type, and the
bundle's LTO-IR as a link item, so nvJitLink inlines CUB into the kernel."""

from __future__ import annotations

import dataclasses
import threading

from numba_cuda_mlir import types
from numba_cuda_mlir.extending import intrinsic
from numba_cuda_mlir.numba_cuda.core import errors as numba_errors

from . import _records


@dataclasses.dataclass(frozen=True)
class Operand:
    # "pointer", "value", "extent" / "stride" (of dimension `dimension` of an array operand), or "size"
    # (an array operand's element count)
    kind: str
    value_type: str  # for values: the scalar type the ABI takes ("int64", "float16", "bool", ...)
    dimension: int = -1

    @property
    def takes_array(self) -> bool:
        return self.kind in ("pointer", "extent", "stride", "size")


@dataclasses.dataclass(frozen=True)
class Provider:
    symbol: str
    operands: tuple[Operand, ...]
    links: tuple  # numba_cuda_mlir LTOIR of the bundle, and of any Python operator it calls
    result: str | None = None  # the dtype written through the ret slot, which the call returns


_providers: dict[str, Provider] = {}
_lock = threading.Lock()


def register(provider: Provider) -> None:
    with _lock:
        _providers[provider.symbol] = provider


def _lookup(symbol: str) -> Provider:
    with _lock:
        return _providers[symbol]


_INTEGER_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}


def _mlir_scalar(name: str):
    from numba_cuda_mlir._mlir.extras import types as T

    if name == "bool":
        return T.bool()  # i1
    if name in _INTEGER_BITS:
        return {8: T.i8, 16: T.i16, 32: T.i32, 64: T.i64}[_INTEGER_BITS[name]]()
    if name in ("complex64", "complex128"):
        return T.complex(T.f32() if name == "complex64" else T.f64())
    return {"float16": T.f16, "bfloat16": T.bf16, "float32": T.f32, "float64": T.f64}[name]()


def numba_scalar(name: str):
    """The Numba type of a payload value of engine dtype `name`: a scalar, or a record's tuple."""
    if _records.is_record(name):
        return _records.numba_type(name)
    return _records.scalar_type(name)


def _complex_parts(slot, value_type: str):
    """(part type, real slot, imaginary slot) of a complex in memory: C++'s complex<T> is {real, imaginary}."""
    from numba_cuda_mlir._mlir.dialects import llvm

    part = _mlir_scalar("float32" if value_type == "complex64" else "float64")
    return part, slot, llvm.getelementptr(llvm.PointerType.get(), slot, [], [1], part, no_wrap_flags=0)


def _read_result(builder, slot, value_type: str):
    """The value the wrapper wrote through ret (a C++ bool is a byte)."""
    from numba_cuda_mlir._mlir.dialects import arith, llvm
    from numba_cuda_mlir._mlir.extras import types as T

    if value_type == "bool":
        byte = llvm.load(T.i8(), slot)
        return arith.cmpi(arith.CmpIPredicate.ne, byte, arith.constant(T.i8(), 0))
    if value_type in ("complex64", "complex128"):
        from numba_cuda_mlir._mlir.dialects import complex as complex_dialect

        part, real_slot, imaginary_slot = _complex_parts(slot, value_type)
        real, imaginary = llvm.load(part, real_slot), llvm.load(part, imaginary_slot)
        return complex_dialect.create_(_mlir_scalar(value_type), real, imaginary)
    return llvm.load(_mlir_scalar(value_type), slot)


def _abi_value(value, value_type: str, signed: bool):
    """`value` as the wrapper takes it: 16-bit floats as their bits, bool as a byte."""
    from numba_cuda_mlir._mlir.dialects import arith
    from numba_cuda_mlir._mlir.extras import types as T
    from numba_cuda_mlir.lowering_utilities import convert

    value = convert(value, _mlir_scalar(value_type), signed=signed)
    if value_type in ("float16", "bfloat16"):
        return arith.bitcast(T.i16(), value)
    if value_type == "bool":
        return arith.extui(T.i8(), value)
    return value


def _complex_by_pointer(builder, value, value_type: str):
    """A complex value as the wrapper takes it: a pointer to its {real, imaginary} parts,
    in a slot of the entry block (the inverse of _read_result)."""
    from numba_cuda_mlir._mlir.dialects import complex as complex_dialect
    from numba_cuda_mlir._mlir.dialects import llvm
    from numba_cuda_mlir.lowering_utilities import convert

    if value.type != _mlir_scalar(value_type):
        value = convert(value, _mlir_scalar(value_type))
    slot = builder.alloca(_slot_type(value_type))
    _, real_slot, imaginary_slot = _complex_parts(slot, value_type)
    llvm.store(complex_dialect.re(value), real_slot)
    llvm.store(complex_dialect.im(value), imaginary_slot)
    return slot


def record_slot(builder, dtype: str):
    """A slot of the entry block holding one record: its bytes, at its alignment."""
    from numba_cuda_mlir._mlir import ir as mlir
    from numba_cuda_mlir._mlir.dialects import arith, llvm
    from numba_cuda_mlir._mlir.extras import types as T

    layout = _records.layout(dtype)
    with builder.alloca_insertion_point():
        bytes_type = mlir.Type.parse(f"!llvm.array<{layout.size} x i8>")
        one = arith.constant(T.i64(), 1)
        return llvm.alloca(llvm.PointerType.get(), one, bytes_type, alignment=layout.alignment)


def _field_address(record, offset: int):
    from numba_cuda_mlir._mlir.dialects import llvm
    from numba_cuda_mlir._mlir.extras import types as T

    if offset == 0:
        return record
    return llvm.getelementptr(llvm.PointerType.get(), record, [], [offset], T.i8(), no_wrap_flags=0)


def store_record(record, value, value_types, dtype: str) -> None:
    """Writes a tuple (its MLIR values, of Numba types `value_types`) into the record at
    `record`, each field converted to its dtype and stored at the offset C++ reads it from."""
    from numba_cuda_mlir._mlir.dialects import complex as complex_dialect
    from numba_cuda_mlir._mlir.dialects import llvm
    from numba_cuda_mlir.lowering_utilities import convert

    layout = _records.layout(dtype)
    for field, offset, item, item_type in zip(layout.fields, layout.offsets, value, value_types):
        address = _field_address(record, offset)
        if field in ("complex64", "complex128"):
            item = item if item.type == _mlir_scalar(field) else convert(item, _mlir_scalar(field))
            _, real_slot, imaginary_slot = _complex_parts(address, field)
            llvm.store(complex_dialect.re(item), real_slot)
            llvm.store(complex_dialect.im(item), imaginary_slot)
        elif field == "bool":
            llvm.store(_abi_value(item, "bool", True), address)  # C++'s bool is a byte
        else:
            llvm.store(convert(item, _mlir_scalar(field), signed=getattr(item_type, "signed", True)), address)


def load_record(record, dtype: str) -> tuple:
    """The tuple (MLIR values) the record at `record` holds: the inverse of store_record."""
    layout = _records.layout(dtype)
    return tuple(
        _read_result(None, _field_address(record, offset), field)
        for field, offset in zip(layout.fields, layout.offsets)
    )


@intrinsic
def read_record(typingctx, pointer, dtype):
    """The record of `dtype` (a constant name) at `pointer`, as a tuple: how a Python function
    taking records by pointer (an operator, a prefix callback) reads its arguments."""
    if not isinstance(dtype, types.StringLiteral):
        return None  # typing retries with the literal name
    name = dtype.literal_value

    def codegen(builder, target, args, kwargs):
        builder.store_var(target, load_record(builder.load_var(args[0]), name))

    return numba_scalar(name)(pointer, dtype), codegen


@intrinsic
def write_record(typingctx, pointer, value, dtype):
    """Writes the tuple `value` as the record of `dtype` (a constant name) at `pointer`."""
    if not isinstance(dtype, types.StringLiteral):
        return None
    name = dtype.literal_value
    fields = _records.layout(name).fields
    if not isinstance(value, types.BaseTuple) or len(value.types) != len(fields):
        raise numba_errors.TypingError(f"{value} is not a {name} (a tuple of {len(fields)} values)")

    def codegen(builder, target, args, kwargs):
        store_record(builder.load_var(args[0]), builder.load_var(args[1]), value.types, name)
        builder.store_var(target, None)

    return types.void(pointer, value, dtype), codegen


def _extent(metadata, dimension: int):
    """A dimension's element count from a memref's strided metadata (base, offset, sizes...,
    strides...), as int64: numba-cuda-mlir gives a dimension sliced with a negative step a
    negative size (its own indexing reads only strides)."""
    from numba_cuda_mlir._mlir.dialects import math as math_dialect
    from numba_cuda_mlir._mlir.extras import types as T
    from numba_cuda_mlir.lowering_utilities import convert

    return math_dialect.absi(convert(metadata[2 + dimension], T.i64()))


def _view_metadata(array, operand: Operand):
    """An extent or a stride (in elements) of a strided view, as the int64 the wrapper takes."""
    from numba_cuda_mlir._mlir.dialects import memref
    from numba_cuda_mlir._mlir.extras import types as T
    from numba_cuda_mlir.lowering_utilities import convert

    metadata = memref.extract_strided_metadata(array)
    if operand.kind == "stride":
        return convert(metadata[2 + array.type.rank + operand.dimension], T.i64())
    return _extent(metadata, operand.dimension)


def _array_size(array):
    """An array's element count, as the int64 the wrapper takes: the product of its extents."""
    from numba_cuda_mlir._mlir.dialects import arith, memref
    from numba_cuda_mlir._mlir.extras import types as T

    metadata = memref.extract_strided_metadata(array)
    size = arith.constant(T.i64(), 1)
    for dimension in range(array.type.rank):
        size = arith.muli(size, _extent(metadata, dimension))
    return size


def _slot_type(result: str | None):
    """What the return slot is allocated as: a byte, the scalar, or two parts of a complex."""
    from numba_cuda_mlir._mlir import ir as mlir
    from numba_cuda_mlir._mlir.extras import types as T

    if result in (None, "bool"):
        return T.i8()
    if result in ("complex64", "complex128"):
        return mlir.VectorType.get([2], T.f32() if result == "complex64" else T.f64())
    return _mlir_scalar(result)


def _codegen(provider: Provider, operand_types):
    def codegen(builder, target, args, kwargs):
        from numba_cuda_mlir._mlir import ir as mlir
        from numba_cuda_mlir._mlir.dialects import func, llvm
        from numba_cuda_mlir._mlir.extras import types as T
        from numba_cuda_mlir.lowering_utilities import get_or_insert_function, memref_data_pointer

        values = []
        for var, operand, numba_type in zip(args[1:], provider.operands, operand_types):
            value = builder.load_var(var)
            if operand.kind == "pointer":
                values.append(memref_data_pointer(value))
            elif operand.kind in ("extent", "stride"):
                values.append(_view_metadata(value, operand))
            elif operand.kind == "size":
                values.append(_array_size(value))
            elif operand.value_type in ("complex64", "complex128"):
                values.append(_complex_by_pointer(builder, value, operand.value_type))
            elif _records.is_record(operand.value_type):
                slot = record_slot(builder, operand.value_type)
                store_record(slot, value, numba_type.types, operand.value_type)
                values.append(slot)
            else:
                signed = getattr(numba_type, "signed", True)
                values.append(_abi_value(value, operand.value_type, signed))
        pointer = llvm.PointerType.get()
        signature = mlir.FunctionType.get(inputs=[pointer] + [v.type for v in values], results=[T.i32()])
        callee = get_or_insert_function(provider.symbol, signature, builder.mlir_gpu_module)
        # The return slot lives in the entry block: a call in a loop must not grow the stack.
        if _records.is_record(provider.result):
            return_slot = record_slot(builder, provider.result)
        else:
            return_slot = builder.alloca(_slot_type(provider.result))
        func.call(result=[T.i32()], callee=callee.name.value, operands_=[return_slot] + values)
        for link in provider.links:
            builder.link_external_item(link)
        if provider.result is None:
            result = None
        elif _records.is_record(provider.result):
            result = load_record(return_slot, provider.result)
        else:
            result = _read_result(builder, return_slot, provider.result)
        builder.store_var(target, result)

    return codegen


def _check_record_value(provider, position, numba_type, dtype) -> None:
    fields = _records.layout(dtype).fields
    if not isinstance(numba_type, types.BaseTuple) or len(numba_type.types) != len(fields):
        raise numba_errors.TypingError(
            f"{provider.symbol}: operand {position} is {numba_type}; the provider takes a {dtype} "
            f"(a tuple of {len(fields)} values)"
        )


@intrinsic
def coop_provider_call(typingctx, symbol, *operands):
    if not isinstance(symbol, types.StringLiteral):
        return None  # typing retries with the literal symbol
    provider = _lookup(symbol.literal_value)
    if len(operands) != len(provider.operands):
        raise numba_errors.TypingError(
            f"{provider.symbol}: {len(operands)} operands given, the provider takes {len(provider.operands)}"
        )
    for position, (numba_type, operand) in enumerate(zip(operands, provider.operands)):
        is_array = isinstance(numba_type, types.Array)
        if _records.is_record(operand.value_type) and not is_array:
            _check_record_value(provider, position, numba_type, operand.value_type)
            continue
        if operand.takes_array != is_array or not (is_array or isinstance(numba_type, types.Number | types.Boolean)):
            raise numba_errors.TypingError(
                f"{provider.symbol}: operand {position} is {numba_type}; the provider takes a {operand.kind}"
            )
    result = types.void if provider.result is None else numba_scalar(provider.result)
    return result(symbol, *operands), _codegen(provider, operands)
