"""A copy of an array whose length is not a multiple of the tile: each block
moves one tile at a runtime offset, and the last tile is partial (valid_items),
with slots past the end loaded as -1 (oob_default). Runs where a GPU exists."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@cuda.jit
def copy_with_tail(source, destination, loaded, n):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    offset = cuda.blockIdx.x * TILE
    valid = min(n - offset, TILE)
    coop.load(block, source, items, algorithm="warp_transpose", valid_items=valid, oob_default=-1, offset=offset)
    for i in range(ITEMS):
        loaded[offset + cuda.threadIdx.x * ITEMS + i] = items[i]
    coop.store(block, destination, items, algorithm="warp_transpose", valid_items=valid, offset=offset)


def main(n=1000):
    blocks = (n + TILE - 1) // TILE
    source = np.arange(n, dtype=np.float32)
    destination = np.zeros_like(source)
    loaded = np.zeros(blocks * TILE, dtype=np.float32)
    if not cuda.is_available():
        print(coop.explain(copy_with_tail, source, destination, loaded, n, grid=blocks, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    outputs = [cuda.to_device(array) for array in (destination, loaded)]  # no copies around the launch
    copy_with_tail[blocks, THREADS](cuda.to_device(source), *outputs, n)
    for host, on_device in zip((destination, loaded), outputs):
        on_device.copy_to_host(host)
    np.testing.assert_array_equal(destination, source)
    assert (loaded[n:] == -1).all()
    print(f"copied {n} items in {blocks} tiles of {TILE}; the tail's {blocks * TILE - n} slots loaded as -1")


if __name__ == "__main__":
    main()
