"""A kernel with cooperative calls addresses shared memory in 32 bits, as nvcc's kernels
do (cuda.coop.numba_mlir._shared_pointers): its NVVM IR declares 32-bit address-space-3
pointers, and a 16-item radix sort of 256 threads needs fewer registers for it (79
against 100 with CUDA 13.0: three blocks per SM instead of two, as its nvcc twin). A
kernel without cooperative calls keeps the compiler's layout."""

import re

import numpy as np
import pytest
from numba_cuda_mlir import cuda, types
from numba_cuda_mlir.mlir_optimization import get_llvmir, get_ptx

from cuda import coop
from cuda.coop.numba_mlir import _resources, _shared_pointers
from cuda.coop.numba_mlir._explain import _capability, compile_for_launch

ROW = types.Array(types.uint32, 1, "C")
SHORT = "p3:32:32:32"


@pytest.fixture(autouse=True)
def sm_90():
    major, _ = _capability()
    if major >= 10:
        pytest.skip("from sm_100 on the compiler translates through a path that keeps its own layout")


def shared_address_width(ptx) -> set:
    """The widths of the registers the PTX moves a shared array's address into."""
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    return set(re.findall(r"mov\.u(32|64)\s+%r\w*\d+, \w*shared\w*;", ptx))


def test_installed_on_this_compiler():
    assert _shared_pointers.install() is True


def registers(result) -> int:
    return _resources.of_kernel(result.metadata["cubin"], result.metadata["func_name"]).registers


def test_a_sort_addresses_shared_memory_in_32_bits(monkeypatch):
    @cuda.jit
    def sort_tile(source, destination):
        block = coop.this_block()
        keys = coop.ThreadData(16)
        coop.load(block, source, keys, algorithm="direct")
        coop.store(block, destination, coop.radix_sort_keys(block, keys), algorithm="direct")

    result = compile_for_launch(sort_tile, [ROW, ROW], 1, 256)
    assert result.metadata["targetoptions"][_shared_pointers.OPTION] is True
    assert SHORT in get_llvmir(result)
    monkeypatch.setattr(_shared_pointers, "DATA_LAYOUT", None)  # the compiler's own layout
    wide = compile_for_launch(sort_tile, [ROW, ROW], 1, 256)
    assert SHORT not in get_llvmir(wide)
    assert registers(result) < registers(wide)


def test_a_kernel_without_cooperative_calls_keeps_the_compilers_layout():
    @cuda.jit
    def reverse(source, destination):
        staged = cuda.shared.array(128, np.uint32)
        staged[cuda.threadIdx.x] = source[cuda.threadIdx.x]
        cuda.syncthreads()
        destination[cuda.threadIdx.x] = staged[127 - cuda.threadIdx.x]

    result = compile_for_launch(reverse, [ROW, ROW], 1, 128)
    assert _shared_pointers.OPTION not in result.metadata["targetoptions"]
    assert SHORT not in get_llvmir(result)
    assert shared_address_width(get_ptx(result)) == {"64"}
