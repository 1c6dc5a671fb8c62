"""A 256-bin histogram of an 8-bit image in one kernel: each block counts its tiles with
coop.histogram (cub::BlockHistogram), adds them up in a ThreadData of its own, and merges
its counters into the global histogram with one atomic per bin. Prints the plan (no GPU
needed), then launches and checks against np.bincount where a GPU exists."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS = 256
ITEMS = 16  # bytes per thread per tile: one 16-byte vector load
TILE = THREADS * ITEMS
BINS = 256


@cuda.jit
def image_histogram(pixels, histogram, tiles):
    block = coop.this_block()
    total = coop.ThreadData(1, dtype=np.int32)
    total[0] = 0
    for tile in range(cuda.blockIdx.x, tiles, cuda.gridDim.x):  # a grid-stride loop over full tiles
        samples = coop.load(block, pixels, coop.ThreadData(ITEMS), offset=tile * TILE, algorithm="vectorize")
        counts = coop.histogram(block, samples, bins=BINS)
        total[0] += counts[0]
    if total[0] != 0:  # thread t holds bin t
        cuda.atomic.add(histogram, cuda.threadIdx.x, total[0])


def main(height=1080, width=1920):
    rng = np.random.default_rng(0)
    # A smooth gradient with noise: most bins are used, a few heavily.
    image = (np.add.outer(np.arange(height), np.arange(width)) * 255 // (height + width - 2)).astype(np.int32)
    image = np.clip(image + rng.integers(-8, 9, size=image.shape), 0, 255).astype(np.uint8)
    pixels = image.ravel()
    tiles = pixels.size // TILE  # the tail past the last full tile is counted on the host below
    histogram = np.zeros(BINS, dtype=np.int32)
    print(coop.explain(image_histogram, pixels, histogram, tiles, grid=132, block=THREADS))
    if not cuda.is_available():
        print("no GPU here: planned, generated, compiled and linked; not launched")
        return
    counted = cuda.to_device(histogram)  # device arrays: no copy in and out around the launch
    image_histogram[min(tiles, 132 * 8), THREADS](cuda.to_device(pixels), counted, tiles)
    counted.copy_to_host(histogram)
    histogram += np.bincount(pixels[tiles * TILE :], minlength=BINS).astype(np.int32)
    np.testing.assert_array_equal(histogram, np.bincount(pixels, minlength=BINS))
    print(f"launched on the GPU: the histogram of {pixels.size} pixels matches np.bincount")


if __name__ == "__main__":
    main()
