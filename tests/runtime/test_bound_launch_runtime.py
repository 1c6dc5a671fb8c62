"""coop.bind_launch on the GPU: a kernel bound once (to its grid, block and argument
types) and launched through cuLaunchKernel computes what kernel[grid, block](*args)
computes, call after call with new arrays, for a declared block, an undeclared one
(launch-specialized) and a plain kernel with a strided 2-D view and scalars; arrays of
other types are refused. Its host time per launch is measured by
benchmarks/compile_latency.py (scenario 4, configured_once and bound_launch)."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import bind_launch

THREADS, ITEMS, BLOCKS = 128, 4, 6
TILE = THREADS * ITEMS


def scan_kernel(declared: bool):
    def body(block, source, destination):
        items = coop.ThreadData(ITEMS)
        start = cuda.blockIdx.x * TILE
        coop.load(block, source, items, offset=start)
        coop.store(block, destination, coop.inclusive_sum(block, items), offset=start)

    body = cuda.jit(device=True)(body)
    if declared:

        @cuda.jit
        def scan(source, destination):
            body(coop.this_block(THREADS), source, destination)

    else:

        @cuda.jit
        def scan(source, destination):
            body(coop.this_block(), source, destination)

    return scan


def tiles(seed: int):
    host = np.random.default_rng(seed).integers(-100, 100, BLOCKS * TILE).astype(np.int32)
    return host, np.cumsum(host.reshape(BLOCKS, TILE), axis=1, dtype=np.int32).ravel()


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "undeclared"])
def test_a_bound_coop_kernel_scans_like_a_launch(declared):
    kernel = scan_kernel(declared)
    host, _ = tiles(0)
    launch = bind_launch(kernel, BLOCKS, THREADS, cuda.to_device(host), cuda.device_array_like(host))
    for seed in (1, 2, 3):  # new arrays every call
        host, expected = tiles(seed)
        destination = cuda.device_array_like(host)
        launch(cuda.to_device(host), destination)
        cuda.synchronize()
        np.testing.assert_array_equal(destination.copy_to_host(), expected)
    launched = cuda.device_array_like(host)
    kernel[BLOCKS, THREADS](cuda.to_device(host), launched)
    np.testing.assert_array_equal(launched.copy_to_host(), expected)


@cuda.jit
def scale_columns(matrix, factor, rows):
    row, column = cuda.grid(2)
    if row < rows and column < matrix.shape[1]:
        matrix[row, column] = matrix[row, column] * factor + column


def test_a_bound_plain_kernel_takes_a_strided_view_and_scalars():
    host = np.arange(64 * 48, dtype=np.float32).reshape(64, 48)
    device = cuda.to_device(host)
    view = device[::2, 1::3]  # strided in both dimensions
    launch = bind_launch(scale_columns, (4, 4), (16, 16), view, np.float32(2), np.int64(view.shape[0]))
    launch(view, np.float32(2), np.int64(view.shape[0]))
    cuda.synchronize()
    expected = host.copy()
    expected[::2, 1::3] = host[::2, 1::3] * 2 + np.arange(host[::2, 1::3].shape[1], dtype=np.float32)
    np.testing.assert_array_equal(device.copy_to_host(), expected)


def test_arrays_of_another_type_are_refused():
    kernel = scan_kernel(True)
    host, _ = tiles(0)
    launch = bind_launch(kernel, BLOCKS, THREADS, cuda.to_device(host), cuda.device_array_like(host))
    other = cuda.device_array(BLOCKS * TILE, np.float32)
    with pytest.raises(coop.InvalidArgumentError, match="argument 0 is an array of <f4 with 1 dimension"):
        launch(other, cuda.device_array_like(host))


def test_a_bound_launch_takes_the_same_arrays_again_and_torch_tensors():
    kernel = scan_kernel(True)
    host, expected = tiles(4)
    source, destination = cuda.to_device(host), cuda.device_array_like(host)
    launch = bind_launch(kernel, BLOCKS, THREADS, source, destination)
    for _ in range(3):  # the same arrays: their parameters stay in place
        launch(source, destination)
    other = cuda.device_array_like(host)
    launch(source, other)  # a new destination after the same one
    cuda.synchronize()
    np.testing.assert_array_equal(destination.copy_to_host(), expected)
    np.testing.assert_array_equal(other.copy_to_host(), expected)
    torch = pytest.importorskip("torch")
    tensor_source = torch.as_tensor(host, device="cuda")
    tensor_destination = torch.zeros_like(tensor_source)
    launch(tensor_source, tensor_destination)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(tensor_destination.cpu().numpy(), expected)
    with pytest.raises(coop.InvalidArgumentError, match="a tensor in host memory"):
        launch(tensor_source.cpu(), tensor_destination)
