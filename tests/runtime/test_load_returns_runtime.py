"""`load` fills its output in place and returns it (the seed's API, decided): the value it
returns is that payload, usable by the next call."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop


@cuda.jit
def copy_and_sum(source, destination, sums):
    block = coop.this_block()
    items = coop.ThreadData(4)
    loaded = coop.load(block, source, items)
    coop.store(block, destination, loaded)
    total = coop.sum(block, coop.load(block, source, coop.ThreadData(4)))
    if cuda.threadIdx.x == 0:
        sums[0] = total + items[0] - loaded[0]  # the same array: the difference is 0


def test_load_returns_the_payload_it_filled():
    source = np.arange(512, dtype=np.int32)
    destination = np.zeros_like(source)
    sums = np.zeros(1, np.int32)
    copy_and_sum[1, 128](source, destination, sums)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)
    assert sums[0] == source.sum()


@cuda.jit
def copy_by_the_returned_extent(source, destination):
    items = coop.load(coop.this_block(), source, coop.ThreadData(3))
    for i in range(items.items_per_thread):  # the returned payload has the attributes of the one passed in
        destination[cuda.threadIdx.x * 3 + i] = items[i]


def test_the_returned_payload_knows_its_extent():
    source = np.arange(3 * 64, dtype=np.int32)
    destination = np.zeros_like(source)
    copy_by_the_returned_extent[1, 64](source, destination)
    cuda.synchronize()
    np.testing.assert_array_equal(destination, source)
