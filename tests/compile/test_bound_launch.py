"""coop.bind_launch without a GPU: what it compiles and the parameter block it packs.
A bound launch writes each argument into the kernel's parameters as numba-cuda-mlir
lowers them (an array as a memref descriptor of 3 + 2 x ndim 64-bit fields, a scalar
as itself); the count must be the compiled entry's, read from its PTX, or the driver
would launch with parameters shifted. The launches themselves are in
tests/runtime/test_bound_launch_runtime.py."""

import re
import struct

import pytest
from launch_without_a_gpu import ArrayInterface
from numba_cuda_mlir import cuda, types

from cuda import coop
from cuda.coop.numba_mlir import _dispatch
from cuda.coop.numba_mlir._bound_launch import ParameterBlock, parameter_slots
from cuda.coop.numba_mlir._explain import _capability

ROW = types.Array(types.float32, 1, "C")
MATRIX = types.Array(types.int32, 2, "A")
LAUNCH = {"grid": (4, 1, 1), "block": (128, 1, 1), "sharedmem": 0, "cluster": None}


@pytest.fixture(autouse=True)
def sm_90():
    _capability()


def entry_parameters(result) -> list:
    """The .param types of the kernel's entry, in the PTX after the link (a coop kernel's
    own PTX is LTO-IR until the providers are linked in)."""
    from numba_cuda_mlir.mlir_optimization import get_lto_ptx

    ptx = get_lto_ptx(result)
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    entry = ptx[ptx.index(".entry") :]
    return re.findall(r"\.param \.(\w+)", entry[: entry.index(")")])


def test_the_parameters_of_arrays_and_scalars_are_the_entrys():
    @cuda.jit
    def scale(row, matrix, factor, count):
        i = cuda.grid(1)
        if i < count:
            row[i] *= factor
            matrix[i, 0] += 1

    argtypes = (ROW, MATRIX, types.float32, types.int64)
    result = _dispatch.compile_result_for(scale, argtypes, LAUNCH)
    slots = parameter_slots(argtypes)
    assert [len(slot) for slot in slots] == [5, 7, 1, 1]
    assert len(entry_parameters(result)) == sum(len(slot) for slot in slots)
    assert entry_parameters(result)[-2:] == ["f32", "u64"]


def declared(shape):
    @cuda.jit
    def tile(source, destination):
        block = coop.this_block(shape)
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, coop.inclusive_sum(block, items))

    return tile


def undeclared():
    @cuda.jit
    def tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(2)
        coop.load(block, source, items)
        coop.store(block, destination, coop.inclusive_sum(block, items))

    return tile


def test_a_declared_block_binds_its_generic_overload():
    kernel = declared(128)
    result = _dispatch.compile_result_for(kernel, (ROW, ROW), LAUNCH)
    assert result is kernel.overloads[(ROW, ROW)]
    assert len(entry_parameters(result)) == 10


def test_a_declared_kernel_is_not_bound_to_another_block():
    kernel = declared((32, 4))
    with pytest.raises(coop.InvalidGroupError, match=r"declares coop.this_block\(\(32, 4\)\).*\(128, 1, 1\)"):
        _dispatch.compile_result_for(kernel, (ROW, ROW), LAUNCH)


def test_an_undeclared_block_binds_the_overload_of_its_block_shape():
    kernel = undeclared()
    result = _dispatch.compile_result_for(kernel, (ROW, ROW), LAUNCH)
    assert not kernel.overloads and not kernel._requires_launch_config
    assert _dispatch.compile_results(kernel) == [result]
    assert result.metadata["cubin"][:4] == b"\x7fELF"
    assert len(entry_parameters(result)) == 10
    # Bound again for the same launch: the same overload, nothing compiled.
    assert _dispatch.compile_result_for(kernel, (ROW, ROW), LAUNCH) is result


def test_arguments_it_cannot_pass_are_refused_when_binding():
    with pytest.raises(coop.InvalidArgumentError, match=r"argument 1 is of type .*Tuple|argument 1 is of type \("):
        parameter_slots((ROW, types.UniTuple(types.int32, 2)))
    with pytest.raises(coop.InvalidArgumentError, match="argument 0 is of type Literal"):
        parameter_slots((types.IntegerLiteral(3),))


class Tensor:
    """What a bound launch reads of a torch tensor (its interface only for the dtype)."""

    def __init__(self, address, shape, stride, is_cuda=True):
        self.dtype, self.shape, self._stride, self.is_cuda, self._address = "float32", shape, stride, is_cuda, address
        self.__cuda_array_interface__ = {"typestr": "<f4"}

    def data_ptr(self):
        return self._address

    def stride(self):
        return self._stride


def test_the_parameter_block_holds_descriptors_and_scalars():
    block = ParameterBlock((ROW, MATRIX, types.float32, types.int64))
    block.write((ArrayInterface((8,), "<f4", 0x1000), ArrayInterface((4, 6), "<i4", 0x2000, (48, 8)), 2.5, -3))
    values = block.values()
    assert values[:5] == [0x1000, 0x1000, 0, 8, 1]
    assert values[5:12] == [0x2000, 0x2000, 0, 4, 6, 12, 2]  # strides in elements
    assert struct.unpack("<f", struct.pack("<q", values[12])[:4]) == (2.5,)
    assert values[13] == -3
    block.write((Tensor(0x3000, (8,), (1,)), ArrayInterface((4, 6), "<i4", 0x2000, (48, 8)), 1.0, 7))
    assert block.values()[:2] == [0x3000, 0x3000] and block.values()[13] == 7


def test_the_parameter_block_refuses_what_the_binding_does_not_take():
    block = ParameterBlock((ROW, types.int32))
    with pytest.raises(coop.InvalidArgumentError, match="argument 0 is an array of <i4 with 1 dimension"):
        block.write((ArrayInterface((8,), "<i4", 0x1000), 1))
    with pytest.raises(coop.InvalidArgumentError, match="argument 0 is not C-contiguous"):
        block.write((ArrayInterface((8,), "<f4", 0x1000, (8,)), 1))
    with pytest.raises(coop.InvalidArgumentError, match=r"argument 1 \(4294967296\) does not fit the bound int32"):
        block.write((ArrayInterface((8,), "<f4", 0x1000), 2**32))
    with pytest.raises(coop.InvalidArgumentError, match="a tensor in host memory"):
        block.write((Tensor(0x1000, (8,), (1,), is_cuda=False), 1))
    with pytest.raises(coop.InvalidArgumentError, match="1 arguments given, 2 bound"):
        block.write((ArrayInterface((8,), "<f4", 0x1000),))
