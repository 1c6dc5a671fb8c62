"""Sort segments of different lengths, one block per segment: each block loads its segment
(the slots past its end take +inf, so they sort last), radix-sorts the keys with their
original positions (coop.radix_sort_pairs: stable, so equal keys keep their order), and
stores the sorted keys and the permutation for the segment's length only. Checked against
NumPy's stable argsort of each segment."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 8
CAPACITY = THREADS * ITEMS  # the longest segment one block sorts


@cuda.jit
def sort_segments(keys, offsets, sorted_keys, permutation):
    block = coop.this_block()
    start = offsets[cuda.blockIdx.x]
    length = offsets[cuda.blockIdx.x + 1] - start
    items = coop.ThreadData(ITEMS)
    coop.load(block, keys, items, algorithm="warp_transpose", offset=start, valid_items=length, oob_default=np.inf)
    positions = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        positions[i] = cuda.threadIdx.x * ITEMS + i
    ordered, moved = coop.radix_sort_pairs(block, items, positions)
    coop.store(block, sorted_keys, ordered, offset=start, valid_items=length)
    coop.store(block, permutation, moved, offset=start, valid_items=length)


def main(segments=200):
    rng = np.random.default_rng(11)
    lengths = rng.integers(0, CAPACITY + 1, segments)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    keys = rng.integers(-50, 50, offsets[-1]).astype(np.float32)  # many equal keys: stability shows
    sorted_keys, permutation = np.zeros_like(keys), np.zeros(keys.size, np.int32)
    if not cuda.is_available():
        print(coop.explain(sort_segments, keys, offsets, sorted_keys, permutation, grid=segments, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    outputs = [cuda.to_device(array) for array in (sorted_keys, permutation)]  # no copies around the launch
    sort_segments[segments, THREADS](cuda.to_device(keys), cuda.to_device(offsets), *outputs)
    for host, on_device in zip((sorted_keys, permutation), outputs):
        on_device.copy_to_host(host)
    for segment in range(segments):
        span = slice(offsets[segment], offsets[segment + 1])
        order = np.argsort(keys[span], kind="stable")
        np.testing.assert_array_equal(permutation[span], order)
        np.testing.assert_array_equal(sorted_keys[span], keys[span][order])
    print(f"sorted {segments} segments of 0 to {CAPACITY} keys ({keys.size} in all): stable, as NumPy's argsort")


if __name__ == "__main__":
    main()
