"""Strided and N-D array views in load and store: the tile is the view's elements in
C order (the last index fastest), whatever the view's strides, never the memory
under it read as flat. Views are made as users make them: sliced in the kernel
(steps of either sign), sliced from device arrays on the host, or Fortran-order
device arrays. Compared with NumPy's C-order ravel of the same view.

numba-cuda-mlir 0.5.4 slices in a kernel with its own arithmetic, which differs from
NumPy's in three places (whatever cuda.coop does with the view): a slice's length is
floor((stop - start) / step) (NumPy rounds up), an omitted start of a negative step
is 0 (NumPy: the last element), and a dimension sliced with a negative step has a
negative size (the provider call takes its magnitude). The in-kernel cases below
avoid the first two; the host-made device views cover the rest, negative steps too."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

BLOCK_ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose"]
WARP_ALGORITHMS = ["direct", "striped", "vectorize", "transpose"]


def numbered(shape, dtype=np.int32):
    return np.arange(np.prod(shape)).reshape(shape).astype(dtype)


def held_tile(flat, threads, items, algorithm):
    """The tile as thread t's items (row t): blocked, or striped for the striped algorithm."""
    if algorithm == "striped":
        return flat.reshape(items, threads).T
    return flat.reshape(threads, items)


@cuda.jit(device=True)
def rank():
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


@cuda.jit(device=True)
def copy_through(block, view, back_view, copy, held, algorithm, items_per_thread):
    """Loads `view`; records what each thread holds; stores the tile contiguously into
    `copy` and back through `back_view`. A transposing store rearranges its payload,
    so each store gets its own copy of the items."""
    items = coop.ThreadData(items_per_thread)
    again = coop.ThreadData(items_per_thread)
    coop.load(block, view, items, algorithm=algorithm)
    for i in range(items_per_thread):
        held[rank() * items_per_thread + i] = items[i]
        again[i] = items[i]
    coop.store(block, copy, items, algorithm=algorithm)
    coop.store(block, back_view, again, algorithm=algorithm)


def sliced_1d(algorithm, items_per_thread):
    @cuda.jit
    def copy_view(base, back, start, stop, step, copy, held):
        block = coop.this_block()
        copy_through(block, base[start:stop:step], back[start:stop:step], copy, held, algorithm, items_per_thread)

    return copy_view


def sliced_2d(algorithm, items_per_thread):
    @cuda.jit
    def copy_view(base, back, rows, columns, copy, held):
        block = coop.this_block()
        view = base[rows[0] : rows[1] : rows[2], columns[0] : columns[1] : columns[2]]
        back_view = back[rows[0] : rows[1] : rows[2], columns[0] : columns[1] : columns[2]]
        copy_through(block, view, back_view, copy, held, algorithm, items_per_thread)

    return copy_view


def whole(algorithm, items_per_thread):
    @cuda.jit
    def copy_view(view, back_view, copy, held):
        copy_through(coop.this_block(), view, back_view, copy, held, algorithm, items_per_thread)

    return copy_view


def check(view, back_before, back_after, back_view, copy, held, threads, items, algorithm):
    flat = view.ravel(order="C")
    np.testing.assert_array_equal(copy, flat)
    np.testing.assert_array_equal(held.reshape(threads, items), held_tile(flat, threads, items, algorithm))
    np.testing.assert_array_equal(back_view, view)  # the store wrote through the view's strides...
    outside = np.ones(back_after.size, bool)
    outside[element_offsets(back_after, back_view)] = False
    memory, before = back_after.ravel(order="K"), back_before.ravel(order="K")
    np.testing.assert_array_equal(memory[outside], before[outside])  # ...and nowhere else


def element_offsets(base, view):
    """Where each element of `view` lies in `base`'s memory, in elements."""
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    index = np.indices(view.shape).reshape(view.ndim, -1)
    steps = np.array(view.strides) // base.itemsize
    return start + (index * steps[:, None]).sum(axis=0)


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
@pytest.mark.parametrize("bounds", [(5, 1029, 2), (1, 1537, 3), (600, 88, -1), (1300, 276, -2)], ids=str)
def test_one_dimensional_view_sliced_in_the_kernel(algorithm, bounds):
    threads, items = 128, 4
    base = numbered(1600, np.int64)
    back = np.zeros_like(base)
    copy, held = np.zeros(threads * items, np.int64), np.zeros(threads * items, np.int64)
    sliced_1d(algorithm, items)[1, threads](base, back, *bounds, copy, held)
    cuda.synchronize()
    index = slice(*bounds)
    check(base[index], np.zeros_like(base), back, back[index], copy, held, threads, items, algorithm)


SUBTILES = {
    "subtile": ((16, 32, 1), (8, 24, 1)),  # a 16x16 tile of an image
    "rows-reversed": ((63, 15, -1), (16, 32, 1)),  # 48 x 16
    "columns-reversed": ((16, 32, 1), (30, 14, -1)),  # 16 x 16
    "both-reversed": ((40, 8, -2), (30, 14, -1)),  # 16 x 16
}


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
@pytest.mark.parametrize("name", SUBTILES)
def test_two_dimensional_view_sliced_in_the_kernel(algorithm, name):
    rows, columns = SUBTILES[name]
    image = numbered((64, 48), np.float32)
    back = np.zeros_like(image)
    index = (slice(*rows), slice(*columns))
    threads = 256
    items = image[index].size // threads
    copy, held = np.zeros(threads * items, np.float32), np.zeros(threads * items, np.float32)
    sliced_2d(algorithm, items)[1, (16, 16)](image, back, np.array(rows), np.array(columns), copy, held)
    cuda.synchronize()
    check(image[index], np.zeros_like(image), back, back[index], copy, held, threads, items, algorithm)


HOST_VIEWS = {  # base shape, index, block, items per thread
    "1d-step-2": ((1029,), (slice(5, None, 2),), 128, 4),
    "1d-step-3": ((1540,), (slice(1, 1537, 3),), 128, 4),
    "2d-steps": ((40, 48), (slice(8, 40, 2), slice(1, 46, 3)), (16, 15), 1),  # 16 x 15
    "3d": ((8, 12, 10), (slice(1, 5), slice(None, None, 3), slice(2, 10)), 32, 4),  # 4 x 4 x 8
    "1d-reversed": ((1024,), (slice(None, None, -2),), 128, 4),
    "2d-reversed": ((40, 48), (slice(None, 8, -2), slice(46, 16, -2)), (16, 15), 1),  # 16 x 15
}


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
@pytest.mark.parametrize("name", HOST_VIEWS)
def test_device_array_view_made_on_the_host(algorithm, name):
    shape, index, block, items = HOST_VIEWS[name]
    if algorithm == "warp_transpose" and block == (16, 15):
        pytest.skip("warp_transpose needs whole warps; 240 threads are not")
    threads = int(np.prod(block))
    base = numbered(shape, np.float64)
    device_base, device_back = cuda.to_device(base), cuda.to_device(np.zeros_like(base))
    copy, held = np.zeros(threads * items), np.zeros(threads * items)
    whole(algorithm, items)[1, block](device_base[index], device_back[index], copy, held)
    cuda.synchronize()
    back = device_back.copy_to_host()
    check(base[index], np.zeros_like(base), back, back[index], copy, held, threads, items, algorithm)


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_fortran_order_array_is_read_in_c_order(algorithm):
    image = np.asfortranarray(numbered((32, 16), np.int16))
    device_image, device_back = cuda.to_device(image), cuda.to_device(np.asfortranarray(np.zeros_like(image)))
    copy, held = np.zeros(512, np.int16), np.zeros(512, np.int16)
    whole(algorithm, 4)[1, 128](device_image, device_back, copy, held)
    cuda.synchronize()
    back = device_back.copy_to_host()
    assert back.flags.f_contiguous
    check(image, np.zeros_like(image), back, back, copy, held, 128, 4, algorithm)


@cuda.jit
def image_tile(image, out):
    """A 16x16 block takes the 16x16 tile of the image at its block position: thread (x, y) holds image[y, x]."""
    block = coop.this_block()
    pixel = coop.ThreadData(1)
    row, column = cuda.blockIdx.y * 16, cuda.blockIdx.x * 16
    coop.load(block, image[row : row + 16, column : column + 16], pixel)
    out[row + cuda.threadIdx.y, column + cuda.threadIdx.x] = pixel[0] * 2
    coop.store(block, image[row : row + 16, column : column + 16], pixel)


def test_a_block_loads_its_image_tile():
    image = numbered((48, 64), np.float32)
    out = np.zeros_like(image)
    image_tile[(4, 3), (16, 16)](image, out)
    cuda.synchronize()
    np.testing.assert_array_equal(out, numbered((48, 64), np.float32) * 2)
    np.testing.assert_array_equal(image, numbered((48, 64), np.float32))


@cuda.jit
def partial_view(view, copy, valid, start):
    block = coop.this_block()
    items = coop.ThreadData(2)
    coop.load(block, view, items, algorithm="transpose", valid_items=valid, oob_default=-1, offset=start)
    coop.store(block, copy, items, algorithm="transpose")


@pytest.mark.parametrize("valid", [0, 100, 193])  # 193: up to the view's last element
def test_partial_tile_and_offset_count_view_elements(valid):
    base = numbered((40, 30), np.int32)
    copy = np.zeros(256, np.int32)
    start = 7
    partial_view[1, 128](cuda.to_device(base)[::2, 1::3], copy, valid, start)  # 20 x 10: 200 elements
    cuda.synchronize()
    expected = np.full(256, -1, np.int32)
    expected[:valid] = base[::2, 1::3].ravel()[start : start + valid]
    np.testing.assert_array_equal(copy, expected)


def warp_view_copy(algorithm):
    @cuda.jit
    def copy_warps(base, copy):
        warp = coop.this_warp()
        items = coop.ThreadData(2)
        coop.load(warp, base, items, algorithm=algorithm)  # each warp: its own tile of the view
        coop.store(warp, copy, items, algorithm=algorithm)

    return copy_warps


@pytest.mark.parametrize("algorithm", WARP_ALGORITHMS)
def test_warp_groups_take_strided_views(algorithm):
    base = numbered(3 * 256, np.uint8)
    copy = np.zeros(256, np.uint8)
    warp_view_copy(algorithm)[1, 128](cuda.to_device(base)[::3], copy)
    cuda.synchronize()
    np.testing.assert_array_equal(copy, base[::3])
