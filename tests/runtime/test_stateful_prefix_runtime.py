"""StatefulFunction prefix callbacks (the seed's qualified API): the state is the scan's third
operand, carried from tile to tile by the callback, launched and compared with NumPy."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

import cuda.coop.numba_mlir as coop


@cuda.jit(device=True)
def running_total(state, block_aggregate):
    before = state[0]
    state[0] = before + block_aggregate
    return before


class RunningMaximum:
    """The class spelling: __call__ takes the state pointer first."""

    def __call__(self_ptr, block_aggregate):
        before = self_ptr[0]
        self_ptr[0] = max(before, block_aggregate)
        return before


def running_scan_kernel(stateful, mode, items_per_thread, state_dtype):
    tile = 128 * items_per_thread

    @cuda.jit
    def kernel(data, out, final, tiles):
        block = coop.this_block()
        state = coop.ThreadData(1, dtype=state_dtype)
        state[0] = 0
        for t in range(tiles):
            items = coop.ThreadData(items_per_thread)
            coop.load(block, data, items, offset=t * tile)
            if mode == "exclusive":
                scanned = coop.exclusive_sum(block, items, state, prefix_op=stateful)
            else:
                scanned = coop.inclusive_scan(block, items, state, scan_op="max", prefix_op=stateful)
            coop.store(block, out, scanned, offset=t * tile)
            cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            final[0] = state[0]

    return kernel


@pytest.mark.parametrize("items", [1, 4])
@pytest.mark.parametrize("state_dtype", [np.int64, np.int32], ids=["state_int64", "state_int32"])
def test_a_running_prefix_sum_across_tiles(items, state_dtype):
    tiles = 5
    data = np.random.default_rng(7).integers(-50, 50, size=tiles * 128 * items).astype(np.int32)
    out = np.zeros_like(data)
    final = np.zeros(1, state_dtype)
    kernel = running_scan_kernel(coop.StatefulFunction(running_total, state_dtype), "exclusive", items, state_dtype)
    kernel[1, 128](data, out, final, tiles)
    cuda.synchronize()
    expected = np.concatenate([[0], np.cumsum(data)[:-1]]).astype(np.int32)
    np.testing.assert_array_equal(out, expected)
    assert final[0] == data.sum()


def test_a_running_maximum_with_a_class_op():
    tiles, items = 3, 2
    data = np.random.default_rng(9).integers(0, 1000, size=tiles * 128 * items).astype(np.int32)
    out = np.zeros_like(data)
    final = np.zeros(1, np.int32)
    kernel = running_scan_kernel(coop.StatefulFunction(RunningMaximum, np.int32), "inclusive", items, np.int32)
    kernel[1, 128](data, out, final, tiles)
    cuda.synchronize()
    np.testing.assert_array_equal(out, np.maximum.accumulate(data))
    assert final[0] == data.max()


@cuda.jit(device=True)
def twice_the_aggregate(block_aggregate):
    return block_aggregate * 2


def seven(block_aggregate):  # a plain function: made a device function when compiled
    return 7


def stateless_scan_kernel(prefix, mode, items_per_thread):
    if items_per_thread == 0:  # one value per thread

        @cuda.jit
        def scalars(data, out):
            block = coop.this_block()
            value = data[cuda.threadIdx.x]
            if mode == "exclusive":
                out[cuda.threadIdx.x] = coop.exclusive_sum(block, value, prefix_op=prefix)
            else:
                out[cuda.threadIdx.x] = coop.inclusive_sum(block, value, prefix_op=prefix)

        return scalars

    @cuda.jit
    def arrays(data, out):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, data, items)
        if mode == "exclusive":
            scanned = coop.exclusive_sum(block, items, prefix_op=prefix)
        else:
            scanned = coop.inclusive_sum(block, items, prefix_op=prefix)
        coop.store(block, out, scanned)

    return arrays


@pytest.mark.parametrize("items", [0, 1, 3], ids=["scalar", "items1", "items3"])
@pytest.mark.parametrize("mode", ["exclusive", "inclusive"])
@pytest.mark.parametrize("prefix", [twice_the_aggregate, seven], ids=["device_function", "plain_function"])
def test_a_stateless_prefix_function_seeds_the_scan(prefix, mode, items):
    data = np.random.default_rng(3).integers(-50, 50, size=128 * max(items, 1)).astype(np.int32)
    out = np.zeros_like(data)
    stateless_scan_kernel(prefix, mode, items)[1, 128](data, out)
    cuda.synchronize()
    seed = 2 * data.sum() if prefix is twice_the_aggregate else 7
    scanned = np.cumsum(data) if mode == "inclusive" else np.concatenate([[0], np.cumsum(data)[:-1]])
    np.testing.assert_array_equal(out, (seed + scanned).astype(np.int32))


@cuda.jit
def running_sum_built_in_the_kernel(data, out, tiles):
    block = coop.this_block()
    state = coop.ThreadData(1, dtype=np.int32)
    state[0] = 0
    stateful = coop.StatefulFunction(running_total, np.int32)  # compile-time arguments: built at compile time
    for t in range(tiles):
        items = coop.load(block, data, coop.ThreadData(2), offset=t * 256)
        coop.store(block, out, coop.exclusive_sum(block, items, state, prefix_op=stateful), offset=t * 256)
        cuda.syncthreads()


def test_a_stateful_function_built_in_the_kernel():
    data = np.random.default_rng(3).integers(-9, 9, size=3 * 256).astype(np.int32)
    out = np.zeros_like(data)
    running_sum_built_in_the_kernel[1, 128](data, out, 3)
    cuda.synchronize()
    np.testing.assert_array_equal(out, np.concatenate([[0], np.cumsum(data)[:-1]]).astype(np.int32))
