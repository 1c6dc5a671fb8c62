"""Stream compaction in one block: keep-flags, their exclusive sum (the output
positions, with the block's aggregate as the count), then a scatter. Checked against
NumPy's boolean indexing."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS, ITEMS = 128, 4


@cuda.jit
def compact_positive(values, kept, count):
    block = coop.this_block()
    items = coop.ThreadData(ITEMS)
    coop.load(block, values, items)
    keep = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        keep[i] = 1 if items[i] > 0 else 0
    positions = coop.exclusive_sum(block, keep, aggregate_output=count)  # the count reaches every thread
    for i in range(ITEMS):
        if keep[i]:
            kept[positions[i]] = items[i]


def main():
    values = np.random.default_rng(5).integers(-100, 100, size=THREADS * ITEMS).astype(np.int64)
    kept = np.zeros_like(values)
    count = np.zeros(1, np.int32)
    if not cuda.is_available():
        print(coop.explain(compact_positive, values, kept, count, grid=1, block=THREADS))
        print("no GPU here: planned and compiled; not launched")
        return
    outputs = [cuda.to_device(array) for array in (kept, count)]  # no copies around the launch
    compact_positive[1, THREADS](cuda.to_device(values), *outputs)
    for host, on_device in zip((kept, count), outputs):
        on_device.copy_to_host(host)
    expected = values[values > 0]
    assert count[0] == len(expected)
    np.testing.assert_array_equal(kept[: count[0]], expected)
    print(f"kept {count[0]} of {len(values)} values, in order")


if __name__ == "__main__":
    main()
