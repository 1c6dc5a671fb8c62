"""The spec's tile copy as a Python kernel: coop.load and coop.store of a block,
with items_per_thread a kernel argument. Prints the plans and the generated C++
(no GPU needed), then launches and checks the copy where a GPU exists."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop


@cuda.jit
def copy_tile(source, destination, items_per_thread):
    block = coop.this_block()
    items = coop.ThreadData(items_per_thread)
    coop.load(block, source, items, algorithm="transpose")
    coop.store(block, destination, items, algorithm="transpose")


def main(items_per_thread=2):
    source = np.arange(128 * items_per_thread, dtype=np.int32)
    destination = np.zeros_like(source)
    print(coop.explain(copy_tile, source, destination, items_per_thread, grid=1, block=128))
    if not cuda.is_available():
        print("no GPU here: planned, generated, compiled and linked; not launched")
        return
    copied = cuda.to_device(destination)  # device arrays: no copy in and out around the launch
    copy_tile[1, 128](cuda.to_device(source), copied, items_per_thread)
    copied.copy_to_host(destination)
    np.testing.assert_array_equal(destination, source)
    print("launched on the GPU: copy verified")


if __name__ == "__main__":
    main()
