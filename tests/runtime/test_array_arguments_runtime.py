"""Launches (GPU) of kernels with cooperative calls, one kernel launched again and again with
arrays of every layout the launcher hands a kernel: C- and Fortran-ordered, strided slices,
views that start inside their allocation, views with a dimension of extent 1 whose stride
is not the contiguous one, and torch tensors with a storage offset, through
`kernel[grid, block]` and coop.bind_launch. numba-cuda-mlir's launcher reuses the kernel it
compiled for the first array of a dtype and rank for every later one, whatever its layout,
and the translation reads every array offset as 0 (_array_arguments.py): Python indexing
reads every layout right (compared element by element with NumPy); a kernel whose
coop.load reads a C-contiguous array as one run refuses a view of another layout, which a
kernel of its own reads right (_dispatch.check_reused_layouts)."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import bind_launch

THREADS = 128


@cuda.jit(device=True)
def copy_elementwise(matrix, cube, matrix_out, cube_out):
    """Copies both arrays element by element with Python indexing, the block's threads
    taking every blockDim-th element."""
    t = cuda.threadIdx.x
    rows, columns = matrix.shape
    for k in range(t, rows * columns, cuda.blockDim.x):
        matrix_out[k // columns, k % columns] = matrix[k // columns, k % columns]
    depth, height, width = cube.shape
    for k in range(t, depth * height * width, cuda.blockDim.x):
        i, j, m = k // (height * width), (k // width) % height, k % width
        cube_out[i, j, m] = cube[i, j, m]


@cuda.jit
def copy_views(matrix, cube, matrix_out, cube_out, total):
    """Copies both views; the block's sum of the thread indexes is the cooperative call
    that puts the kernel through the planner."""
    block = coop.this_block()
    t = cuda.threadIdx.x
    copy_elementwise(matrix, cube, matrix_out, cube_out)
    summed = coop.sum(block, np.int64(t))
    if t == 0:
        total[0] = summed


def numbered(shape, dtype=np.float32):
    return (np.arange(np.prod(shape)) * 3 + 1).reshape(shape).astype(dtype)


MATRIX = numbered((9, 14))
CUBE = numbered((5, 6, 7))

# (name, host array -> device view, the same view on the host)
VIEWS = {
    "c_order": (lambda d: d, lambda h: h),
    "fortran_order": (lambda d: d, np.asfortranarray),
    "strided_slice": (lambda d: d[::2, 1::3] if d.ndim == 2 else d[:, ::2, 1:], None),
    "starts_inside": (lambda d: d[3:] if d.ndim == 2 else d[2:, 1:], None),
    "extent_one": (lambda d: d[2:3] if d.ndim == 2 else d[1:2, 3:4], None),
}


def device_view(name, host):
    make, layout = VIEWS[name]
    if name == "fortran_order":
        return cuda.to_device(layout(host)), layout(host)
    device = cuda.to_device(host)
    view = make(device)
    return view, make(host)


@pytest.mark.parametrize("name", list(VIEWS))
def test_python_indexing_reads_every_layout(name):
    matrix, matrix_host = device_view(name, MATRIX)
    cube, cube_host = device_view(name, CUBE)
    matrix_out = cuda.device_array(matrix_host.shape, np.float32)
    cube_out = cuda.device_array(cube_host.shape, np.float32)
    total = cuda.device_array(1, np.int64)
    copy_views[1, THREADS](matrix, cube, matrix_out, cube_out, total)
    np.testing.assert_array_equal(matrix_out.copy_to_host(), matrix_host)
    np.testing.assert_array_equal(cube_out.copy_to_host(), cube_host)
    assert total.copy_to_host()[0] == THREADS * (THREADS - 1) // 2


def test_bound_launch_reads_views_that_start_inside_their_allocation():
    matrix, matrix_host = device_view("starts_inside", MATRIX)
    cube, cube_host = device_view("starts_inside", CUBE)
    matrix_out = cuda.device_array(matrix_host.shape, np.float32)
    cube_out = cuda.device_array(cube_host.shape, np.float32)
    total = cuda.device_array(1, np.int64)
    launch = bind_launch(copy_views, 1, THREADS, matrix, cube, matrix_out, cube_out, total)
    launch(matrix, cube, matrix_out, cube_out, total)
    cuda.synchronize()
    np.testing.assert_array_equal(matrix_out.copy_to_host(), matrix_host)
    np.testing.assert_array_equal(cube_out.copy_to_host(), cube_host)


def test_bound_launch_reads_torch_tensors_with_a_storage_offset():
    torch = pytest.importorskip("torch")
    base = torch.arange(3 * 9 * 14, dtype=torch.float32, device="cuda").reshape(3 * 9, 14)
    matrix, cube = base[9:18], base.reshape(3, 9, 14)[1:]  # both start inside the tensor's storage
    assert matrix.storage_offset() and cube.storage_offset()
    matrix_out, cube_out = torch.empty_like(matrix), torch.empty_like(cube)
    total = torch.empty(1, dtype=torch.int64, device="cuda")
    bound_to = [cuda.device_array(tuple(t.shape), np.float32) for t in (matrix, cube, matrix_out, cube_out)]
    launch = bind_launch(copy_views, 1, THREADS, *bound_to, cuda.device_array(1, np.int64))
    launch(matrix, cube, matrix_out, cube_out, total)
    torch.cuda.synchronize()
    assert torch.equal(matrix_out, matrix)
    assert torch.equal(cube_out, cube)


ITEMS = 4


def copy_tile(source, destination):
    """The block's tile of `source` (its elements in C order, whatever its strides) into
    the contiguous `destination`."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, source, items)
    coop.store(block, destination, items)


def test_a_kernel_reading_contiguous_arrays_as_runs_refuses_views_and_a_kernel_of_their_own_reads_them():
    flat_host, wide_host = numbered((4 * THREADS * ITEMS,)), numbered((2 * ITEMS, 2 * THREADS))
    flat, wide = cuda.to_device(flat_host), cuda.to_device(wide_host)
    groups = [  # (the contiguous array the kernel is compiled for first, views of its dtype and rank)
        ((flat[: THREADS * ITEMS], flat_host[: THREADS * ITEMS]), [(flat[::4], flat_host[::4])]),
        (
            (cuda.to_device(numbered((ITEMS, THREADS))), numbered((ITEMS, THREADS))),
            [
                (wide[:ITEMS, :THREADS], wide_host[:ITEMS, :THREADS]),
                (wide[::2, ::2], wide_host[::2, ::2]),
                (cuda.to_device(np.asfortranarray(numbered((ITEMS, THREADS)))), numbered((ITEMS, THREADS))),
            ],
        ),
    ]
    for (contiguous, contiguous_host), views in groups:
        kernel = cuda.jit(copy_tile)
        destination = cuda.device_array(THREADS * ITEMS, np.float32)
        kernel[1, THREADS](contiguous, destination)
        np.testing.assert_array_equal(destination.copy_to_host(), contiguous_host.ravel())
        for view, expected in views:
            with pytest.raises(coop.InvalidArgumentError, match="argument 'source'"):
                kernel[1, THREADS](view, destination)
            own = cuda.jit(copy_tile)
            own[1, THREADS](view, destination)
            np.testing.assert_array_equal(destination.copy_to_host(), expected.ravel())
            own[1, THREADS](contiguous, destination)  # a compile for a view reads any layout through its strides
            np.testing.assert_array_equal(destination.copy_to_host(), contiguous_host.ravel())


@cuda.jit
def load_then_copy_views(source, matrix, cube, matrix_out, cube_out, total):
    """copy_views after a load that reads `source` as one run: the compile is pinned to its
    arrays' layouts, so its C arrays are indexed through strides from their sizes."""
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, source, items)
    copy_elementwise(matrix, cube, matrix_out, cube_out)
    summed = coop.sum(block, items)
    if cuda.threadIdx.x == 0:
        total[0] = summed


def test_a_kernel_pinned_to_its_layouts_indexes_every_contiguous_array_right():
    """Whole arrays and views with a dimension of extent 1 (its stride not the contiguous one)
    are both C-contiguous: one compile serves them, its strides folded from the sizes; a
    strided view is refused before it reuses it."""
    source_host = numbered((THREADS * ITEMS,))
    source = cuda.to_device(source_host)
    for name in ("c_order", "extent_one"):
        matrix, matrix_host = device_view(name, MATRIX)
        cube, cube_host = device_view(name, CUBE)
        assert matrix_host.flags.c_contiguous and cube_host.flags.c_contiguous
        matrix_out = cuda.device_array(matrix_host.shape, np.float32)
        cube_out = cuda.device_array(cube_host.shape, np.float32)
        total = cuda.device_array(1, np.float32)
        load_then_copy_views[1, THREADS](source, matrix, cube, matrix_out, cube_out, total)
        np.testing.assert_array_equal(matrix_out.copy_to_host(), matrix_host, err_msg=name)
        np.testing.assert_array_equal(cube_out.copy_to_host(), cube_host, err_msg=name)
        assert total.copy_to_host()[0] == source_host.sum()
    matrix, _ = device_view("strided_slice", MATRIX)
    cube, _ = device_view("c_order", CUBE)
    with pytest.raises(coop.InvalidArgumentError, match="argument 'matrix'"):
        load_then_copy_views[1, THREADS](source, matrix, cube, cuda.device_array((5, 5), np.float32), cube, total)
