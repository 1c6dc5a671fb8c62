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

import numpy as np
from numba_cuda_mlir import types

from .._core.errors import InvalidArgumentError
from . import _dispatch
from ._launch import dim3

_SCALARS = {
    types.int8: ctypes.c_int8,
    types.int16: ctypes.c_int16,
    types.int32: ctypes.c_int32,
    types.int64: ctypes.c_int64,
    types.uint8: ctypes.c_uint8,
    types.uint16: ctypes.c_uint16,
    types.uint32: ctypes.c_uint32,
    types.uint64: ctypes.c_uint64,
    types.float32: ctypes.c_float,
    types.float64: ctypes.c_double,
}
_LARGE_SHARED = 48 * 1024  # above it a kernel must opt in to its dynamic shared memory


def parameter_slots(argtypes) -> list[tuple]:
    """Per kernel argument, its parameters' ctypes types: 3 + 2 x ndim int64 for an array,
    one slot of its own type for a scalar."""
    slots = []
    for position, argtype in enumerate(argtypes):
        if isinstance(argtype, types.Array):
            slots.append((ctypes.c_int64,) * (3 + 2 * argtype.ndim))
        elif argtype in _SCALARS:
            slots.append((_SCALARS[argtype],))
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
        self._slots = parameter_slots(self.argtypes)
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
        flat = [kind for slot in self._slots for kind in slot]
        self._values = [kind() for kind in flat]  # the parameters, rewritten per call
        self._pointers = (ctypes.c_void_p * len(flat))(*(ctypes.addressof(value) for value in self._values))
        self._address = ctypes.addressof(self._pointers)
        self._expected = [_array_signature(argtype) for argtype in self.argtypes]
        from cuda.bindings import driver

        self._launch, self._success = driver.cuLaunchKernel, driver.CUresult.CUDA_SUCCESS

    def __call__(self, *args) -> None:
        if len(args) != len(self.argtypes):
            raise InvalidArgumentError(f"coop.bind_launch: {len(args)} arguments given, {len(self.argtypes)} bound")
        index = 0
        for position, (value, expected) in enumerate(zip(args, self._expected)):
            if expected is None:
                self._values[index].value = value
                index += 1
            else:
                index = self._write_array(position, value, expected, index)
        (status,) = self._launch(self._function, *self._dims, self._sharedmem, self._stream, self._address, 0)
        if status != self._success:
            raise RuntimeError(f"coop.bind_launch: cuLaunchKernel failed: {status}")

    def _write_array(self, position: int, value, expected, index: int) -> int:
        interface = value.__cuda_array_interface__
        typestr, ndim, contiguous, itemsize = expected
        shape, strides = interface["shape"], interface.get("strides")
        if interface["typestr"] != typestr or len(shape) != ndim:
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {position} is an array of {interface['typestr']} with {len(shape)} "
                f"dimension(s); bound to {typestr} with {ndim}"
            )
        if strides is None:
            strides = _c_strides(shape, itemsize)
        elif contiguous and tuple(strides) != _c_strides(shape, itemsize):
            raise InvalidArgumentError(
                f"coop.bind_launch: argument {position} is not C-contiguous; bound to one that is"
            )
        address = interface["data"][0]
        fields = (address, address, 0, *shape, *(stride // itemsize for stride in strides))
        for field in fields:
            self._values[index].value = field
            index += 1
        return index


def _array_signature(argtype):
    """(typestr, ndim, C-contiguous, itemsize) an array argument must match; None for a scalar."""
    if not isinstance(argtype, types.Array):
        return None
    dtype = np.dtype(str(argtype.dtype))
    return dtype.str, argtype.ndim, argtype.layout == "C", dtype.itemsize


def _c_strides(shape, itemsize: int) -> tuple:
    strides, step = [], itemsize
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
