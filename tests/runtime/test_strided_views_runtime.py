"""Strided and N-D array views in load and store: the tile is the view's elements in
C order (the last index fastest), whatever the view's strides, never the memory
under it read as flat. Compared with NumPy's own C-order ravel of the same view."""

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


def view_copy(algorithm, items_per_thread):
    """Loads the view it is given into a contiguous `copy`, and stores the tile back
    into the view `back` (of the same shape): held[t, i] is what thread t holds."""

    @cuda.jit
    def copy_view(view, copy, back, held):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, view, items, algorithm=algorithm)
        for i in range(items_per_thread):
            held[rank() * items_per_thread + i] = items[i]
        coop.store(block, copy, items, algorithm=algorithm)
        coop.store(block, back, items, algorithm=algorithm)

    return copy_view


def check_view_copy(algorithm, base, select, threads, items, block):
    """Loads select(base) and stores it back through select() of a zeroed copy of base,
    both views of device arrays (a host view of other strides cannot be transferred)."""
    view = select(base)
    copy = np.zeros(threads * items, base.dtype)
    held = np.zeros(threads * items, base.dtype)
    device_base = cuda.to_device(base)
    device_back = cuda.to_device(np.zeros_like(base))
    view_copy(algorithm, items)[1, block](select(device_base), copy, select(device_back), held)
    cuda.synchronize()
    flat = view.ravel(order="C")
    np.testing.assert_array_equal(copy, flat)
    np.testing.assert_array_equal(held.reshape(threads, items), held_tile(flat, threads, items, algorithm))
    back = device_back.copy_to_host()
    np.testing.assert_array_equal(select(back), view)  # the store wrote through the view's strides...
    outside = np.ones(base.size, bool)
    outside[element_offsets(back, select(back))] = False
    assert not back.ravel(order="K")[outside].any()  # ...and nowhere else


def element_offsets(base, view):
    """Where each element of `view` lies in `base`'s memory, in elements."""
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    index = np.indices(view.shape).reshape(view.ndim, -1)
    steps = np.array(view.strides) // base.itemsize
    return start + (index * steps[:, None]).sum(axis=0)


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
@pytest.mark.parametrize("step", [2, 3, -1, -2])
def test_one_dimensional_strided_view(algorithm, step):
    threads, items = 128, 4
    base = numbered(threads * items * abs(step) + 5, np.int64)

    def select(array):
        return (array[5::step] if step > 0 else array[::step])[: threads * items]

    check_view_copy(algorithm, base, select, threads, items, threads)


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
@pytest.mark.parametrize(
    "index",
    [
        (slice(16, 32), slice(8, 24)),  # a 16x16 tile of an image
        (slice(None, None, -1), slice(16, 32)),  # rows reversed
        (slice(40, 8, -2), slice(30, 14, -1)),  # both reversed, one with a step
    ],
    ids=["subtile", "rows-reversed", "both-reversed"],
)
def test_two_dimensional_subtile(algorithm, index):
    image = numbered((64, 48), np.float32)
    threads = 256
    items = image[index].size // threads
    check_view_copy(algorithm, image, lambda array: array[index], threads, items, (16, 16))


@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_fortran_order_array_is_read_in_c_order(algorithm):
    image = np.asfortranarray(numbered((32, 16), np.int16))
    check_view_copy(algorithm, image, lambda array: array, 128, 4, 128)


def test_three_dimensional_view():
    volume = numbered((8, 12, 10), np.float64)
    check_view_copy("transpose", volume, lambda array: array[1:5, ::3, 2:10], 32, 4, 32)  # 4 x 4 x 8


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


@pytest.mark.parametrize("valid", [0, 100, 193])  # 193: the view's last element
def test_partial_tile_and_offset_count_view_elements(valid):
    base = numbered((40, 30), np.int32)
    view = base[::2, 1::3]  # 20 x 10: 200 elements in C order
    copy = np.zeros(256, np.int32)
    start = 7
    partial_view[1, 128](cuda.to_device(base)[::2, 1::3], copy, valid, start)
    cuda.synchronize()
    flat = view.ravel(order="C")
    expected = np.full(256, -1, np.int32)
    expected[:valid] = flat[start : start + valid]
    np.testing.assert_array_equal(copy, expected)


def warp_view_copy(algorithm):
    @cuda.jit
    def copy_warps(view, copy):
        warp = coop.this_warp()
        items = coop.ThreadData(2)
        tile = (rank() // 32) * 64
        coop.load(warp, view[tile:], items, algorithm=algorithm)
        coop.store(warp, copy[tile:], items, algorithm=algorithm)

    return copy_warps


@pytest.mark.parametrize("algorithm", WARP_ALGORITHMS)
def test_warp_groups_take_strided_views(algorithm):
    base = numbered(3 * 256, np.uint8)
    view = base[::3]
    copy = np.zeros(256, np.uint8)
    warp_view_copy(algorithm)[1, 128](cuda.to_device(base)[::3], copy)
    cuda.synchronize()
    np.testing.assert_array_equal(copy, view)
