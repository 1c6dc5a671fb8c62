"""Run-length decoding of many tiles of runs in one kernel: each block loads its tile of runs
(values and lengths), decodes the whole of it into the output where a host-side exclusive scan
of the tiles' totals puts it, with coop.run_length_decode_into (cub::BlockRunLengthDecode, one
scan of the lengths, then window after window), writes each item's index within its run beside
it, and records its total. The offsets count in the lengths' dtype (uint16, so uint32: 32 bits
at least); the output arrays are checked to hold every item (a launch with too small an array
traps). Prints the plan (no GPU needed), then launches and checks against np.repeat where a GPU
exists."""

import numpy as np
from numba_cuda_mlir import cuda

from cuda import coop

THREADS = 128
RUNS = 4  # runs per thread
TILE = THREADS * RUNS
DECODED = 8  # items each thread decodes per window


@cuda.jit
def rle_decode(values, lengths, starts, output, within, totals):
    block = coop.this_block()
    first = cuda.blockIdx.x * TILE
    runs = coop.load(block, values, coop.ThreadData(RUNS), offset=first)
    sizes = coop.load(block, lengths, coop.ThreadData(RUNS), offset=first)
    total = coop.run_length_decode_into(
        block,
        runs,
        sizes,
        output,
        decoded_items_per_thread=DECODED,
        destination_offset=starts[cuda.blockIdx.x],
        relative_offsets=within,
    )
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total


def main(tiles=200):
    rng = np.random.default_rng(0)
    values = rng.integers(-(2**20), 2**20, size=tiles * TILE).astype(np.int32)
    lengths = rng.geometric(0.2, size=tiles * TILE).astype(np.uint16)  # mostly short runs, some long
    for tile in range(0, tiles, 7):  # some tiles end early: their last runs have length 0
        lengths[tile * TILE + TILE - tile % 50 : (tile + 1) * TILE] = 0
    per_tile = lengths.reshape(tiles, TILE).sum(axis=1, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(per_tile)[:-1]]).astype(np.int64)
    output = np.zeros(int(per_tile.sum()), dtype=np.int32)
    within = np.zeros(output.size, dtype=np.uint32)  # each item's index within its run
    totals = np.zeros(tiles, dtype=np.uint32)
    print(coop.explain(rle_decode, values, lengths, starts, output, within, totals, grid=tiles, block=THREADS))
    if not cuda.is_available():
        print("no GPU here: planned, generated, compiled and linked; not launched")
        return
    inputs = [cuda.to_device(array) for array in (values, lengths, starts)]  # no copies around the launch
    outputs = [cuda.to_device(array) for array in (output, within, totals)]
    rle_decode[tiles, THREADS](*inputs, *outputs)
    for host, on_device in zip((output, within, totals), outputs):
        on_device.copy_to_host(host)
    np.testing.assert_array_equal(totals, per_tile)
    np.testing.assert_array_equal(output, np.repeat(values, lengths))
    np.testing.assert_array_equal(within, np.concatenate([np.arange(n, dtype=np.uint32) for n in lengths]))
    print(f"launched on the GPU: {tiles} tiles of runs decode to {output.size} items, matching np.repeat")


if __name__ == "__main__":
    main()
