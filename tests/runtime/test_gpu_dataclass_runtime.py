"""Dataclass instances as kernel arguments (coop.gpu_dataclass), launched and compared with
NumPy: scalar fields of several kinds, array fields of every origin (NumPy arrays copied
there and back, device arrays, torch tensors) read and written, a field reassigned between
launches, cooperative primitives reading and writing a dataclass's array fields, and two
instances of one shape sharing one compiled kernel. The kernels are module-level factories so
tests/compile/test_gpu_dataclass_compile.py compiles the same ones for sm_90 without a GPU."""

import dataclasses

import numpy as np
import pytest
from numba_cuda_mlir import cuda

import cuda.coop.numba_mlir as coop
from cuda.coop.numba_mlir import _dispatch

THREADS = 128
ITEMS = 4
HANDLER = [coop.gpu_dataclass_argument_handler]


@dataclasses.dataclass
class Affine:
    scale: np.int32
    bias: np.int32


@dataclasses.dataclass
class Mixed:
    count: int  # a Python int: int64 in the kernel
    factor: float  # a Python float: float64
    flag: bool
    half: np.float32


@dataclasses.dataclass
class Buffers:
    source: object  # any array a kernel argument can be
    destination: object
    scale: np.float32


@dataclasses.dataclass(frozen=True)
class Tile:
    source: object
    destination: object
    totals: object


def affine_kernel():
    @cuda.jit(extensions=HANDLER)
    def kernel(values, out, traits):
        i = cuda.threadIdx.x
        out[i] = values[i] * traits.scale + traits.bias

    return kernel


def mixed_kernel():
    @cuda.jit(extensions=HANDLER)
    def kernel(out, traits):
        i = cuda.threadIdx.x
        value = traits.count + i * traits.factor + traits.half
        out[i] = -value if traits.flag else value

    return kernel


def buffers_kernel():
    @cuda.jit(extensions=HANDLER)
    def kernel(traits):
        i = cuda.grid(1)
        if i < traits.source.size:
            traits.destination[i] = traits.source[i] * traits.scale
            traits.source[i] = -traits.source[i]

    return kernel


def tile_kernel():
    """A block's tile loaded from one field, scanned, stored into another; its total into a third."""

    @cuda.jit(extensions=HANDLER)
    def kernel(tile):
        block = coop.this_block()
        items = coop.ThreadData(ITEMS)
        base = cuda.blockIdx.x * THREADS * ITEMS
        coop.load(block, tile.source[base:], items)
        scanned = coop.inclusive_sum(block, items)
        coop.store(block, tile.destination[base:], scanned)
        total = coop.sum(block, items)
        if cuda.threadIdx.x == 0:
            tile.totals[cuda.blockIdx.x] = total

    return kernel


def test_scalar_fields_round_trip():
    values = np.arange(THREADS, dtype=np.int32)
    kernel = affine_kernel()
    for scale, bias in ((3, 7), (5, -2), (-1, 0)):
        traits = coop.gpu_dataclass(Affine(np.int32(scale), np.int32(bias)))
        out = np.zeros_like(values)
        kernel[1, THREADS](values, out, traits)
        np.testing.assert_array_equal(out, values * scale + bias)


def test_python_and_numpy_scalars_of_every_kind():
    kernel = mixed_kernel()
    for flag in (False, True):
        traits = coop.gpu_dataclass(Mixed(7, 0.5, flag, np.float32(0.25)))
        out = np.zeros(THREADS, np.float64)
        kernel[1, THREADS](out, traits)
        expected = 7 + np.arange(THREADS) * 0.5 + 0.25
        np.testing.assert_allclose(out, -expected if flag else expected)


def test_two_instances_of_one_shape_share_one_compile():
    kernel = affine_kernel()
    values = np.arange(THREADS, dtype=np.int32)
    first = coop.gpu_dataclass(Affine(np.int32(2), np.int32(1)))
    second = coop.gpu_dataclass(Affine(np.int32(4), np.int32(-3)))
    for traits in (first, second):
        out = np.zeros_like(values)
        kernel[1, THREADS](values, out, traits)
        np.testing.assert_array_equal(out, values * traits.scale + traits.bias)
    assert len(_dispatch.compile_results(kernel)) == 1


def test_numpy_array_fields_are_copied_there_and_back():
    source = np.arange(1000, dtype=np.float32)
    destination = np.zeros_like(source)
    traits = coop.gpu_dataclass(Buffers(source, destination, np.float32(2)))
    buffers_kernel()[8, THREADS](traits)
    np.testing.assert_array_equal(destination, np.arange(1000, dtype=np.float32) * 2)
    np.testing.assert_array_equal(source, -np.arange(1000, dtype=np.float32))


def test_device_array_fields_are_read_and_written_in_place():
    host = np.arange(1000, dtype=np.float32)
    source, destination = cuda.to_device(host), cuda.device_array(1000, np.float32)
    traits = coop.gpu_dataclass(Buffers(source, destination, np.float32(0.5)))
    buffers_kernel()[8, THREADS](traits)
    np.testing.assert_array_equal(destination.copy_to_host(), host * 0.5)
    np.testing.assert_array_equal(source.copy_to_host(), -host)


def test_torch_tensor_fields():
    torch = pytest.importorskip("torch")
    source = torch.arange(1000, dtype=torch.float32, device="cuda")
    destination = torch.zeros(1000, dtype=torch.float32, device="cuda")
    traits = coop.gpu_dataclass(Buffers(source, destination, np.float32(3)))
    buffers_kernel()[8, THREADS](traits)
    torch.cuda.synchronize()
    expected = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal(destination.cpu().numpy(), expected * 3)
    np.testing.assert_array_equal(source.cpu().numpy(), -expected)


def test_a_field_reassigned_between_launches_is_typed_again():
    kernel = buffers_kernel()
    traits = coop.gpu_dataclass(Buffers(np.ones(256, np.float32), np.zeros(256, np.float32), np.float32(2)))
    kernel[2, THREADS](traits)
    np.testing.assert_array_equal(traits.destination, np.full(256, 2, np.float32))
    traits.source, traits.destination = np.ones(256, np.float64), np.zeros(256, np.float64)
    kernel[2, THREADS](traits)
    np.testing.assert_array_equal(traits.destination, np.full(256, 2, np.float64))
    assert len(_dispatch.compile_results(kernel)) == 2


def test_coop_primitives_on_a_dataclass_s_array_fields():
    blocks = 3
    source = np.random.default_rng(25).integers(-50, 50, blocks * THREADS * ITEMS).astype(np.int32)
    tile = coop.gpu_dataclass(Tile(source, np.zeros_like(source), np.zeros(blocks, np.int32)))
    tile_kernel()[blocks, THREADS](tile)
    per_block = source.reshape(blocks, -1)
    np.testing.assert_array_equal(tile.destination.reshape(blocks, -1), np.cumsum(per_block, axis=1))
    np.testing.assert_array_equal(tile.totals, per_block.sum(axis=1))


def test_a_kernel_without_the_handler_is_refused():
    @cuda.jit
    def kernel(values, out, traits):
        out[cuda.threadIdx.x] = values[cuda.threadIdx.x] + traits.bias

    traits = coop.gpu_dataclass(Affine(np.int32(1), np.int32(2)))
    values = np.arange(THREADS, dtype=np.int32)
    with pytest.raises(coop.InvalidArgumentError, match="gpu_dataclass_argument_handler"):
        kernel[1, THREADS](values, np.zeros_like(values), traits)


def test_an_unregistered_instance_is_refused_at_launch():
    coop.gpu_dataclass(Affine(np.int32(1), np.int32(2)))  # the class is known; this instance is not
    values = np.arange(THREADS, dtype=np.int32)
    with pytest.raises(coop.InvalidArgumentTypeError, match="without being registered"):
        affine_kernel()[1, THREADS](values, np.zeros_like(values), Affine(np.int32(1), np.int32(2)))
