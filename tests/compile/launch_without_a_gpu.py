"""A kernel launch without a GPU, for the compile tests of the launch path: numba-cuda-mlir's
own path (configure, the launcher's readiness check, the compile a launch makes, the
native dispatcher it picks), with only the driver's launch replaced by a Launcher that
records which native dispatcher would have run. The argument values are None, as a
launch whose argument types are known carries them to a compile."""

from __future__ import annotations

import contextlib


class ArrayInterface:
    """A device array known only by its __cuda_array_interface__ (a CuPy array's, a torch
    tensor's): what typing, the launcher and a bound launch read of it; its pointer is never
    dereferenced. `strides` in bytes, None for C-contiguous."""

    def __init__(self, shape, typestr="<i4", address=0x1000, strides=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (address, False),
            "version": 3,
            "strides": strides,
        }


class Launcher:
    """Stands for the compiler's LaunchConfiguration (same constructor): launching returns
    itself, naming the native dispatcher, block and dynamic shared memory of the launch."""

    def __init__(self, native, grid, block, stream=0, sharedmem=0, cluster=None):
        self.native, self.grid, self.block, self.sharedmem, self.cluster = native, grid, block, sharedmem, cluster

    def __call__(self, *args):
        return self


@contextlib.contextmanager
def no_driver():
    """Launchers made while this runs are Launchers."""
    from numba_cuda_mlir import descriptor

    real = descriptor.LaunchConfiguration
    descriptor.LaunchConfiguration = Launcher
    try:
        yield
    finally:
        descriptor.LaunchConfiguration = real


def launch(kernel, grid, block, argtypes, sharedmem=0, cluster=None, values=None) -> Launcher:
    """kernel[grid, block, 0, sharedmem](...) with arguments of `argtypes`, up to the driver;
    `values` where the compile needs some (a literal argument's), else None for each."""
    with no_driver():
        configured = kernel.configure(grid, block, 0, sharedmem, cluster)
        if not isinstance(configured._launcher, Launcher):  # configured before no_driver()
            configured._launcher = Launcher(configured._kernel_dispatcher, grid, block, 0, sharedmem, cluster)
        return configured._launch(list(argtypes), list(values) if values is not None else [None] * len(argtypes))
