"""Block and warp load/store in Python kernels, launched and compared with NumPy."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop
from cuda.coop.numba_mlir import _dispatch

DTYPES = [np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]
ITEMS = [1, 2, 4, 7]
SHAPES = [(128, 1, 1), (32, 4, 1)]
BLOCK_ALGORITHMS = ["direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_timesliced"]
WARP_ALGORITHMS = ["direct", "striped", "vectorize", "transpose"]
STRIPED = {"striped"}


def random_tile(count, dtype, seed=7):
    values = np.random.default_rng(seed).integers(-100, 100, size=count)
    return values.astype(dtype)


@cuda.jit(device=True)
def rank():
    return cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)


def expected_items(tile, threads, items, striped):
    """items[t, i] each thread holds after a load of `tile`."""
    if striped:
        return tile.reshape(items, threads).T
    return tile.reshape(threads, items)


def copy_kernel(algorithm):
    @cuda.jit
    def copy_tile(source, destination, held, items_per_thread):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        tile = cuda.blockIdx.x * items_per_thread * cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
        coop.load(block, source[tile:], items, algorithm=algorithm)
        t = rank()
        for i in range(items_per_thread):
            held[tile + t * items_per_thread + i] = items[i]
        coop.store(block, destination[tile:], items, algorithm=algorithm)

    return copy_tile


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_block_copy(algorithm, dtype, items, shape):
    threads = shape[0] * shape[1] * shape[2]
    blocks = 3
    source = random_tile(blocks * threads * items, dtype)
    destination = np.zeros_like(source)
    held = np.zeros_like(source)
    copy_kernel(algorithm)[blocks, shape](source, destination, held, items)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)
    for b in range(blocks):
        tile = source[b * threads * items : (b + 1) * threads * items]
        got = held[b * threads * items : (b + 1) * threads * items].reshape(threads, items)
        np.testing.assert_array_equal(got, expected_items(tile, threads, items, algorithm in STRIPED))


def partial_kernel(algorithm):
    @cuda.jit
    def copy_partial(source, destination, held, valid):
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items, algorithm=algorithm, valid_items=valid, oob_default=-5)
        t = rank()
        for i in range(4):
            held[t * 4 + i] = items[i]
        coop.store(block, destination, items, algorithm=algorithm, valid_items=valid)

    return copy_partial


@pytest.mark.parametrize("valid", [0, 1, 255, 300, 512])
@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_partial_tiles(algorithm, valid):
    source = random_tile(512, np.int32)
    destination = np.full_like(source, 99)
    held = np.zeros_like(source)
    partial_kernel(algorithm)[1, 128](source, destination, held, valid)
    cuda.synchronize()
    np.testing.assert_array_equal(destination[:valid], source[:valid])
    assert (destination[valid:] == 99).all()
    tile = np.where(np.arange(512) < valid, source, -5).astype(np.int32)
    np.testing.assert_array_equal(held.reshape(128, 4), expected_items(tile, 128, 4, algorithm in STRIPED))


@cuda.jit
def copy_with_offset(source, destination, per_block):
    block = coop.this_block()
    items = coop.ThreadData(2)
    offset = cuda.blockIdx.x * per_block
    coop.load(block, source, items, algorithm="transpose", offset=offset)
    coop.store(block, destination, items, algorithm="transpose", offset=offset)


def test_runtime_offset_tiles_the_array():
    source = random_tile(4 * 256, np.float32)
    destination = np.zeros_like(source)
    copy_with_offset[4, 128](source, destination, 256)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)


def warp_kernel(algorithm, width):
    @cuda.jit
    def copy_physical_warps(source, destination, held, items_per_thread):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        coop.load(warp, source, items, algorithm=algorithm)  # each warp reads its own tile of the block's
        for i in range(items_per_thread):
            held[rank() * items_per_thread + i] = items[i]
        coop.store(warp, destination, items, algorithm=algorithm)

    @cuda.jit
    def copy_logical_warps(source, destination, held, items_per_thread):
        warp = coop.this_warp().group_by(width)
        items = coop.ThreadData(items_per_thread)
        coop.load(warp, source, items, algorithm=algorithm)
        for i in range(items_per_thread):
            held[rank() * items_per_thread + i] = items[i]
        coop.store(warp, destination, items, algorithm=algorithm)

    return copy_physical_warps if width == 32 else copy_logical_warps


@pytest.mark.parametrize("items", ITEMS)
@pytest.mark.parametrize("width", [32, 8, 1])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("algorithm", WARP_ALGORITHMS)
def test_warp_copy(algorithm, dtype, width, items):
    threads = 128
    source = random_tile(threads * items, dtype)
    destination = np.zeros_like(source)
    held = np.zeros_like(source)
    warp_kernel(algorithm, width)[1, threads](source, destination, held, items)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)
    for warp in range(threads // width):
        tile = source[warp * width * items : (warp + 1) * width * items]
        got = held[warp * width * items : (warp + 1) * width * items].reshape(width, items)
        np.testing.assert_array_equal(got, expected_items(tile, width, items, algorithm in STRIPED))


@cuda.jit(device=True)
def helper(group, source, destination):
    items = coop.ThreadData(3)
    coop.load(group, source, items, algorithm="striped")
    coop.store(group, destination, items, algorithm="striped")


@cuda.jit
def calls_a_helper(source, destination):
    helper(coop.this_block(), source, destination)


def test_helper_receives_the_group():
    source = random_tile(96 * 3, np.float64)
    destination = np.zeros_like(source)
    calls_a_helper[1, 96](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)


@cuda.jit
def dtype_from_a_later_store(destination):
    block = coop.this_block()
    items = coop.ThreadData(4)
    for i in range(4):
        items[i] = rank() * 4 + i
    coop.store(block, destination, items)


def test_payload_dtype_from_a_later_store():
    destination = np.zeros(512, dtype=np.int16)
    dtype_from_a_later_store[1, 128](destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, np.arange(512, dtype=np.int16))


def test_second_launch_compiles_nothing():
    kernel = copy_kernel("transpose")
    source = random_tile(256, np.int32)
    for _ in range(2):
        destination = np.zeros_like(source)
        held = np.zeros_like(source)
        kernel[1, 128](source, destination, held, 2)
        cuda.synchronize()
        np.testing.assert_array_equal(destination, source)
    assert len(_dispatch.compile_results(kernel)) == 1


def storage_kernel(sharing):
    @cuda.jit
    def twice(source, destination):
        block = coop.this_block()
        storage = coop.TempStorage(sharing=sharing)
        first = coop.ThreadData(4)
        second = coop.ThreadData(4)
        coop.load(block, source, first, algorithm="transpose", temp_storage=storage)
        coop.load(block, source[512:], second, algorithm="warp_transpose", temp_storage=storage)
        for i in range(4):
            first[i] += second[i]
        coop.store(block, destination, first, algorithm="transpose", temp_storage=storage)

    return twice


@pytest.mark.parametrize("sharing", ["reuse", "exclusive"])
def test_explicit_temp_storage(sharing):
    source = random_tile(1024, np.int32)
    destination = np.zeros(512, np.int32)
    storage_kernel(sharing)[1, 128](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source[:512] + source[512:])


@cuda.jit
def large_scratch(source, destination):
    block = coop.this_block()
    items = coop.ThreadData(8)
    coop.load(block, source, items, algorithm="transpose")
    coop.store(block, destination, items, algorithm="transpose")


def test_scratch_beyond_48_kib_uses_dynamic_shared_memory():
    source = random_tile(1024 * 8, np.int64)  # BlockExchange of 8192 int64: 64 KiB of scratch
    destination = np.zeros_like(source)
    large_scratch[1, 1024](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)


@cuda.jit
def local_array_payload(source, destination):
    block = coop.this_block()
    items = cuda.local.array(4, np.float32)
    coop.load(block, source, items, algorithm="striped")
    for i in range(4):
        items[i] *= 2
    coop.store(block, destination, items, algorithm="striped")


def test_a_local_array_is_a_payload():
    source = random_tile(512, np.float32)
    destination = np.zeros_like(source)
    local_array_payload[1, 128](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source * 2)


def scalar_store_kernel(algorithm, width, literal):
    @cuda.jit
    def store_one_value_per_thread(source, destination, valid):
        group = coop.this_block() if width == 0 else coop.this_warp().group_by(width)
        if literal:
            coop.store(group, destination, 7, algorithm=algorithm, valid_items=valid)
        else:
            coop.store(group, destination, source[rank()], algorithm=algorithm, valid_items=valid)

    return store_one_value_per_thread


@pytest.mark.parametrize("literal", [False, True], ids=["value", "literal"])
@pytest.mark.parametrize("width", [0, 32, 8], ids=["block", "warp", "warp8"])
@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_scalar_store_writes_one_value_per_thread(algorithm, width, literal):
    if width and algorithm not in WARP_ALGORITHMS:
        pytest.skip("a block-only algorithm")
    threads = 128
    source = random_tile(threads, np.int32)
    expected = np.full(threads, 7, np.int32) if literal else source.copy()
    group = threads if width == 0 else width
    valid = group - 3  # the valid prefix of each group's tile
    destination = np.full(threads, -1, np.int32)
    scalar_store_kernel(algorithm, width, literal)[1, threads](source, destination, valid)
    cuda.synchronize()
    for start in range(0, threads, group):
        np.testing.assert_array_equal(destination[start : start + valid], expected[start : start + valid])
        np.testing.assert_array_equal(destination[start + valid : start + group], -1)


def keeping_kernel(algorithm, width):
    @cuda.jit
    def load_and_store_keep_the_callers_items(source, destination, after_load, after_store, valid):
        group = coop.this_block() if width == 0 else coop.this_warp().group_by(width)
        items = coop.ThreadData(4, dtype=np.int32)
        t = rank()
        for i in range(4):
            items[i] = -1000 - (t * 4 + i)  # what a slot past the valid prefix must keep
        coop.load(group, source, items, algorithm=algorithm, valid_items=valid)
        for i in range(4):
            after_load[t * 4 + i] = items[i]
        coop.store(group, destination, items, algorithm=algorithm)
        for i in range(4):
            after_store[t * 4 + i] = items[i]

    return load_and_store_keep_the_callers_items


@pytest.mark.parametrize("width", [0, 32, 8], ids=["block", "warp", "warp8"])
@pytest.mark.parametrize("algorithm", BLOCK_ALGORITHMS)
def test_a_guarded_load_keeps_invalid_slots_and_a_store_keeps_its_items(algorithm, width):
    if width and algorithm not in WARP_ALGORITHMS:
        pytest.skip("a block-only algorithm")
    threads, items = 128, 4
    group = threads if width == 0 else width
    valid = group * items - 5  # each group's tile ends 5 items short
    source = random_tile(threads * items, np.int32)
    destination, after_load, after_store = (np.zeros_like(source) for _ in range(3))
    keeping_kernel(algorithm, width)[1, threads](source, destination, after_load, after_store, valid)
    cuda.synchronize()
    expected = np.empty_like(source)
    for start in range(0, threads * items, group * items):  # each group's tile, as its threads hold it
        tile = source[start : start + group * items]
        held = expected_items(tile, group, items, algorithm in STRIPED)  # [lane, item]
        positions = expected_items(np.arange(group * items), group, items, algorithm in STRIPED)
        first = start // items  # the group's first thread
        initial = -1000 - ((first + np.arange(group))[:, None] * items + np.arange(items)[None, :])
        expected[start : start + group * items] = np.where(positions < valid, held, initial).ravel()
    np.testing.assert_array_equal(after_load, expected)
    np.testing.assert_array_equal(after_store, after_load)  # the store left them as they were
