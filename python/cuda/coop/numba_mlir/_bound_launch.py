"""A kernel bound once to its launch configuration and argument types, then launched
through the driver (cuLaunchKernel, from cuda-bindings): the fast path for launching
the same kernel again and again. A launch written kernel[grid, block](*args) has the
kernel compiler configure the launch, type every argument, look the overload up and
check that it is ready, every time; a bound launch did all of that once, and per call
only writes the arguments' addresses and shapes into the parameter block it keeps.

Kernel parameters, as numba-cuda-mlir lowers them: an array is an MLIR memref
descriptor (allocated and aligned pointers, offset, one size and one stride per
dimension, all 64-bit, offset and strides in elements); an integer or float scalar is
itself. Other arguments (tuples, records, literals the compiler asked for) are refused
when binding: launch those kernels as usual."""

from __future__ import annotations

import ctypes
import struct
import weakref

import numpy as np
from numba_cuda_mlir import types

from .._core.errors import InvalidArgumentError
from . import _dispatch
from ._launch import dim3

_SCALAR_FORMATS = {  # struct formats: packing checks the value's range, as ctypes would not
    types.int8: "<b",
    types.int16: "<h",
    types.int32: "<i",
    types.int64: "<q",
    types.uint8: "<B",
    types.uint16: "<H",
    types.uint32: "<I",
    types.uint64: "<Q",
    types.float32: "<f",
    types.float64: "<d",
}
_LARGE_SHARED = 48 * 1024  # above it a kernel must opt in to its dynamic shared memory


def parameter_slots(argtypes) -> list[tuple]:
    """Per kernel argument, its parameters' struct formats: 3 + 2 x ndim int64 for an array,
    one of its own type for a scalar."""
    slots = []
    for position, argtype in enumerate(argtypes):
        if isinstance(argtype, types.Array):
            slots.append(("<q",) * (3 + 2 * argtype.ndim))
        elif argtype in _SCALAR_FORMATS:
            slots.append((_SCALAR_FORMATS[argtype],))
        else:
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {position} is of type {argtype}, which a bound launch does not "
                "pass; expected arrays and integer or float scalars (launch this kernel with kernel[grid, block])"
            )
    return slots


class BoundLaunch:
    """`kernel` bound to `grid` x `block` (with `sharedmem` bytes of dynamic shared memory,
    on `stream`, a CUstream handle as an int; 0 is the default stream) and to the types of
    `args`; calling it launches the kernel with new arguments of the same types (arrays of
    the same dtype, dimensions and layout). Binding compiles what a launch would compile
    and loads it; nothing runs until the first call."""

    def __init__(self, kernel, grid, block, *args, sharedmem: int = 0, stream: int = 0):
        grid_shape, block_shape = dim3(grid), dim3(block)
        if grid_shape is None or block_shape is None:
            raise InvalidArgumentError(
                f"coop.bind_launch: grid {grid!r} and block {block!r} must each be 1 to 3 positive integers"
            )
        self.argtypes = tuple(kernel.typeof_pyval(value) for value in args)
        self._parameters = ParameterBlock(self.argtypes)
        launch = {"grid": grid_shape, "block": block_shape, "sharedmem": sharedmem, "cluster": None}
        result = _dispatch.compile_result_for(kernel, self.argtypes, launch)
        if result.metadata.get("use_cooperative"):
            raise InvalidArgumentError("coop.bind_launch: a kernel that syncs its grid launches cooperatively")
        self._function = _load(result.metadata["cubin"], result.metadata["func_name"])
        self._sharedmem = max(sharedmem, result.metadata.get("required_dynamic_shared_memory", 0))
        if self._sharedmem > _LARGE_SHARED:
            _opt_in_to_shared_memory(self._function, self._sharedmem)
        self._dims = (*grid_shape, *block_shape)
        self._stream = stream
        from cuda.bindings import driver

        self._launch, self._success = driver.cuLaunchKernel, driver.CUresult.CUDA_SUCCESS

    def __call__(self, *args) -> None:
        address = self._parameters.write(args)
        (status,) = self._launch(self._function, *self._dims, self._sharedmem, self._stream, address, 0)
        if status != self._success:
            raise RuntimeError(f"coop.bind_launch: cuLaunchKernel failed: {status}")


class ParameterBlock:
    """A kernel's parameters in one buffer, a parameter per 8-byte slot (little-endian: a
    narrower scalar sits at its slot's start), and the array of their addresses that
    cuLaunchKernel takes. Per call only what changed is written: an array of the kernel
    compiler's own device arrays (whose address and shape never change) that is the one
    written last time is skipped; other arrays are read through the cheapest interface
    they have (a torch tensor's data_ptr/shape/stride, else __cuda_array_interface__)."""

    def __init__(self, argtypes):
        slots = parameter_slots(argtypes)
        count = sum(len(slot) for slot in slots)
        self._buffer = (ctypes.c_int64 * max(count, 1))()
        base = ctypes.addressof(self._buffer)
        self._pointers = (ctypes.c_void_p * max(count, 1))(*(base + 8 * slot for slot in range(count)))
        self.address = ctypes.addressof(self._pointers)
        self._writers, offset = [], 0
        for position, (argtype, slot) in enumerate(zip(argtypes, slots)):
            if isinstance(argtype, types.Array):
                self._writers.append(_ArrayWriter(position, argtype, self._buffer, offset))
            else:
                self._writers.append(_ScalarWriter(position, argtype, self._buffer, offset))
            offset += 8 * len(slot)

    def write(self, args) -> int:
        """Writes `args` into the parameters; returns the address cuLaunchKernel takes."""
        if len(args) != len(self._writers):
            raise InvalidArgumentError(f"coop.bind_launch: {len(args)} arguments given, {len(self._writers)} bound")
        for writer, value in zip(self._writers, args):
            writer(value)
        return self.address

    def values(self) -> list[int]:
        """The slots as 64-bit integers (what a test reads back)."""
        return list(self._buffer)


class _ScalarWriter:
    def __init__(self, position: int, argtype, buffer, offset: int):
        self._position, self._argtype = position, argtype
        self._pack = struct.Struct(_SCALAR_FORMATS[argtype]).pack_into
        self._buffer, self._offset = buffer, offset

    def __call__(self, value) -> None:
        try:
            self._pack(self._buffer, self._offset, value)
        except struct.error as error:  # out of range, or not a number of the bound kind
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {self._position} ({value!r}) does not fit the bound {self._argtype}"
            ) from error


class _ArrayWriter:
    def __init__(self, position: int, argtype, buffer, offset: int):
        dtype = np.dtype(str(argtype.dtype))
        self._position, self._ndim, self._itemsize = position, argtype.ndim, dtype.itemsize
        self._typestr, self._contiguous = dtype.str, argtype.layout == "C"
        self._pack = struct.Struct(f"<{3 + 2 * argtype.ndim}q").pack_into
        self._buffer, self._offset = buffer, offset
        self._last = None  # a weak reference to the device array written last, when it is one of the compiler's

    def __call__(self, value) -> None:
        last = self._last
        if last is not None and last() is value:
            return  # the same device array as last time: its parameters are in place
        if getattr(value, "__cuda_ndarray__", False):  # the kernel compiler's device array
            address, typestr, shape, strides = _device_array_fields(value)
            remember = True
        elif hasattr(value, "data_ptr") and hasattr(value, "is_cuda"):  # a torch tensor
            address, typestr, shape, strides = _tensor_fields(value)
            remember = False
        else:
            address, typestr, shape, strides = _interface_fields(value, self._itemsize)
            remember = False
        if typestr != self._typestr or len(shape) != self._ndim:
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {self._position} is an array of {typestr} with {len(shape)} "
                f"dimension(s); bound to {self._typestr} with {self._ndim}"
            )
        if self._contiguous and tuple(strides) != _c_strides(shape):
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {self._position} is not C-contiguous; bound to one that is"
            )
        self._pack(self._buffer, self._offset, address, address, 0, *shape, *strides)
        self._last = weakref.ref(value) if remember else None


def _device_array_fields(array):
    """(address, typestr, shape, strides in elements) of the kernel compiler's device array."""
    itemsize = array.dtype.itemsize
    address = array.device_ctypes_pointer.value or 0
    return address, array.dtype.str, array.shape, tuple(stride // itemsize for stride in array.strides)


_TORCH_TYPESTRS: dict = {}  # torch dtype -> NumPy typestr, learnt from a tensor's interface once


def _tensor_fields(tensor):
    if not tensor.is_cuda:
        raise InvalidArgumentError("coop.bind_launch: a tensor in host memory given for a device array")
    typestr = _TORCH_TYPESTRS.get(tensor.dtype)
    if typestr is None:
        typestr = _TORCH_TYPESTRS[tensor.dtype] = tensor.__cuda_array_interface__["typestr"]
    return tensor.data_ptr(), typestr, tuple(tensor.shape), tuple(tensor.stride())


def _interface_fields(value, itemsize: int):
    interface = value.__cuda_array_interface__
    shape, strides = tuple(interface["shape"]), interface.get("strides")
    if strides is None:
        elements = _c_strides(shape)
    else:
        elements = tuple(stride // itemsize for stride in strides)
    return interface["data"][0], interface["typestr"], shape, elements


def _c_strides(shape) -> tuple:
    """A C-contiguous array's strides, in elements."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _load(cubin: bytes, name: str):
    """The kernel's function in a module of its own, loaded into the current context (the
    kernel compiler's: it has made it current)."""
    from cuda.bindings import driver
    from numba_cuda_mlir import cuda

    cuda.current_context()
    status, module = driver.cuModuleLoadData(cubin)
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"coop.bind_launch: cuModuleLoadData failed: {status}")
    status, function = driver.cuModuleGetFunction(module, name.encode())
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"coop.bind_launch: cuModuleGetFunction({name}) failed: {status}")
    return function


def _opt_in_to_shared_memory(function, nbytes: int) -> None:
    from cuda.bindings import driver

    attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    (status,) = driver.cuFuncSetAttribute(function, attribute, nbytes)
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"coop.bind_launch: {nbytes} bytes of dynamic shared memory refused: {status}")


def bind_launch(kernel, grid, block, *args, sharedmem: int = 0, stream: int = 0) -> BoundLaunch:
    """`kernel` bound to `grid` x `block` and to the types of `args`, for repeated launches
    through the driver: `launch = coop.bind_launch(kernel, grid, block, *args)` once, then
    `launch(*args)` per launch, with arguments of the bound types. See BoundLaunch."""
    return BoundLaunch(kernel, grid, block, *args, sharedmem=sharedmem, stream=stream)
