"""The Python kernels with cuda.coop, one per row of configs.py: each block (block
families) or each warp of 32 lanes (warp families) loads its tile with coop.load
at a runtime `offset=`, the block's origin (pointer arithmetic in the provider, as
in the twin; a warp's own tile within the block is the provider's to add), then
stores it back with the same algorithm (copies), sums it (reductions: the
group's first thread writes the sum), scans it into the fresh payload the scan
returns and stores that direct (scans), exchanges it blocked-to-striped and stores it striped (exchanges),
shifts it up by one item and stores it direct (shuffles), sorts, ranks or selects from it and
stores the fresh result direct (the sorting families), takes each item's difference to its
neighbour or flags where runs of equal items begin or end and stores the result direct, with the
item before or after the tile read from the source (the neighbour families), or counts its
samples and stores the bins striped (histograms). The shape constants are closure constants, so
the tile offset is a compile-time multiple, as in the twin.

A warp's index is computed as the twin's C++ computes it, in unsigned 32-bit
arithmetic with a shift, and its first lane found with `cuda.laneid`: Python's
`//` and `%` on signed 64-bit integers round toward minus infinity and an index
may wrap from the end, which costs 20-30 instructions more per thread. That is
the Python kernel's own arithmetic, not cuda.coop's, and it decided the
one-item warp rows of the first run (0.88 of the twin)."""

from __future__ import annotations

import configs
import numpy as np
from numba_cuda_mlir import cuda, types

from cuda import coop


def block_copy(algorithm: str, items_per_thread: int, tile: int):
    @cuda.jit
    def copy_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm=algorithm, offset=start)
        coop.store(block, destination, items, algorithm=algorithm, offset=start)

    return copy_tile


LANE_BITS = configs.WARP_THREADS.bit_length() - 1  # threadIdx.x >> LANE_BITS: the warp in the block


@cuda.jit(device=True)
def warp_in_grid(warps_per_block):
    """The calling warp's index in the grid, computed as the twins compute it."""
    return types.uint32(cuda.blockIdx.x * warps_per_block + (cuda.threadIdx.x >> LANE_BITS))


def warp_copy(algorithm: str, items_per_thread: int, threads: int):
    block_tile = threads * items_per_thread

    @cuda.jit
    def copy_tile(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * block_tile  # the block's origin: each warp addresses its own tile of it
        coop.load(warp, source, items, algorithm=algorithm, offset=start)
        coop.store(warp, destination, items, algorithm=algorithm, offset=start)

    return copy_tile


def block_reduce(algorithm: str, items_per_thread: int, tile: int, broadcast: bool, threads: int):
    writer = threads - 1 if broadcast else 0  # with a broadcast, a thread other than the first can write

    @cuda.jit
    def reduce_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items, algorithm="direct", offset=cuda.blockIdx.x * tile)
        total = coop.sum(block, items, algorithm=algorithm, broadcast=broadcast)
        if cuda.threadIdx.x == writer:
            destination[cuda.blockIdx.x] = total

    return reduce_tile


def warp_reduce(items_per_thread: int, threads: int, broadcast: bool):
    block_tile = threads * items_per_thread
    warps = threads // configs.WARP_THREADS
    writer = configs.WARP_THREADS - 1 if broadcast else 0

    @cuda.jit
    def reduce_tile(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        index = warp_in_grid(warps)
        coop.load(warp, source, items, algorithm="direct", offset=cuda.blockIdx.x * block_tile)
        total = coop.sum(warp, items, broadcast=broadcast)
        if cuda.laneid == writer:
            destination[index] = total

    return reduce_tile


def warp_reduce_batched(batches: int, threads: int):
    block_tile = threads * batches
    warps = threads // configs.WARP_THREADS
    per_lane = -(-batches // configs.WARP_THREADS)

    @cuda.jit
    def reduce_batches(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(batches)
        index = warp_in_grid(warps)
        coop.load(warp, source, items, algorithm="direct", offset=cuda.blockIdx.x * block_tile)
        sums = coop.reduce_batched(warp, items)  # striped: lane l, slot i holds batch l + 32 i
        for i in range(per_lane):
            batch = cuda.laneid + i * configs.WARP_THREADS
            if batch < batches:
                destination[index * batches + batch] = sums[i]

    return reduce_batches


def warps_reduce(items_per_thread: int, threads: int):
    warps = configs.WARPS_PER_GROUP
    group_threads = warps * configs.WARP_THREADS
    groups = threads // group_threads
    block_tile = threads * items_per_thread

    @cuda.jit
    def reduce_tile(source, destination):
        block = coop.this_block()
        pairs = block.group_by(warps)
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items, algorithm="direct", offset=cuda.blockIdx.x * block_tile)
        total = coop.sum(pairs, items)
        if pairs.rank() == 0:  # the pair's index in the grid, unsigned as the twin's
            destination[types.uint32(cuda.blockIdx.x * groups) + pairs.rank("block")] = total

    return reduce_tile


def cluster_reduce(items_per_thread: int, threads: int):
    block_tile = threads * items_per_thread

    @cuda.jit
    def reduce_tile(source, destination):
        block = coop.this_block()
        cluster = coop.this_cluster()
        items = coop.ThreadData(items_per_thread)
        coop.load(block, source, items, algorithm="direct", offset=cuda.blockIdx.x * block_tile)
        total = coop.sum(cluster, items)
        if cluster.rank() == 0:
            destination[cluster.rank("grid")] = total

    return reduce_tile


def block_scan(algorithm: str, operation: str, items_per_thread: int, tile: int):
    scan = getattr(coop, operation)  # coop.inclusive_sum or coop.exclusive_sum

    @cuda.jit
    def scan_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        scanned = scan(block, items, algorithm=algorithm)  # a fresh payload: registers, as in place
        coop.store(block, destination, scanned, algorithm="direct", offset=start)

    return scan_tile


def warp_scan(operation: str, items_per_thread: int, threads: int):
    scan = getattr(coop, operation)
    block_tile = threads * items_per_thread

    @cuda.jit
    def scan_tile(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * block_tile
        coop.load(warp, source, items, algorithm="direct", offset=start)
        scanned = scan(warp, items)
        coop.store(warp, destination, scanned, algorithm="direct", offset=start)

    return scan_tile


def block_exchange(time_sliced: bool, items_per_thread: int, tile: int):
    @cuda.jit
    def exchange_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        striped = coop.exchange(block, items, mode="blocked_to_striped", warp_time_slicing=time_sliced)
        coop.store(block, destination, striped, algorithm="striped", offset=start)

    return exchange_tile


def warp_exchange(items_per_thread: int, threads: int):
    block_tile = threads * items_per_thread

    @cuda.jit
    def exchange_tile(source, destination):
        warp = coop.this_warp()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * block_tile
        coop.load(warp, source, items, algorithm="direct", offset=start)
        striped = coop.exchange(warp, items, mode="blocked_to_striped")
        coop.store(warp, destination, striped, algorithm="striped", offset=start)

    return exchange_tile


def block_shuffle(items_per_thread: int, tile: int):
    @cuda.jit
    def shuffle_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        shifted = coop.shuffle(block, items, mode="up")
        coop.store(block, destination, shifted, algorithm="direct", offset=start)

    return shuffle_tile


def block_radix_sort(pairs: bool, items_per_thread: int, tile: int):
    @cuda.jit
    def sort_tile(source, destination):
        block = coop.this_block()
        keys = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, keys, algorithm="direct", offset=start)
        if pairs:  # the values are loaded from the source too, as the twin's are
            values = coop.ThreadData(items_per_thread)
            coop.load(block, source, values, algorithm="direct", offset=start)
            _, moved = coop.radix_sort_pairs(block, keys, values)
            coop.store(block, destination, moved, algorithm="direct", offset=start)
        else:
            coop.store(block, destination, coop.radix_sort_keys(block, keys), algorithm="direct", offset=start)

    return sort_tile


def merge_sort(group_kind: str, items_per_thread: int, tile: int):
    @cuda.jit
    def sort_tile(source, destination):
        group = coop.this_block() if group_kind == "block" else coop.this_warp()
        keys = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile  # the block's origin: each warp addresses its own tile of it
        coop.load(group, source, keys, algorithm="direct", offset=start)
        ordered = coop.merge_sort_keys(group, keys)
        coop.store(group, destination, ordered, algorithm="direct", offset=start)

    return sort_tile


def block_radix_rank(items_per_thread: int, tile: int):
    @cuda.jit
    def rank_tile(source, destination):
        block = coop.this_block()
        keys = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, keys, algorithm="direct", offset=start)
        ranks = coop.radix_rank_keys(block, keys, begin_bit=0, radix_bits=configs.RANK_BITS)
        coop.store(block, destination, ranks, algorithm="direct", offset=start)

    return rank_tile


def block_topk(items_per_thread: int, tile: int):
    @cuda.jit
    def select_tile(source, destination):
        block = coop.this_block()
        keys = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, keys, algorithm="direct", offset=start)
        chosen = coop.topk_max_keys(block, keys, k=configs.TOPK_K)
        coop.store(block, destination, chosen, algorithm="direct", offset=start)

    return select_tile


# The neighbour's index is the harness, not the primitive, so it is written to compile to the
# twin's instructions (benchmarks/twins/neighbours.cuh): both special registers read up front
# (numba-cuda-mlir reads them through inline assembly, which LLVM will not move into a select,
# so a read inside the conditional became a branch), the choice made on 32-bit values, and an
# index the compiler can see is non-negative (numba-cuda-mlir 0.5.4 adds the negative-index wrap
# to any other). With that, every neighbour row's SASS has its twin's instructions in its twin's
# order (benchmarks/README.md).
@cuda.jit(device=True)
def before_tile(tile):
    """The index of the item before the block's tile; the grid's tiles form a cycle, so the
    first block's is the last item of the grid's."""
    block = np.uint32(cuda.blockIdx.x)
    grid = np.uint32(cuda.gridDim.x)
    previous = np.uint32((block if block > 0 else grid) - np.uint32(1))
    return np.uint64(previous) * np.uint64(tile) + np.uint64(tile - 1)


@cuda.jit(device=True)
def after_tile(tile):
    """The index of the item after the block's tile; the first item for the last block."""
    block = np.uint32(cuda.blockIdx.x)
    grid = np.uint32(cuda.gridDim.x)
    last = np.uint32(grid - np.uint32(1))
    return (np.uint64(block) + np.uint64(1)) * np.uint64(tile) if block < last else np.uint64(0)


def adjacent_difference_left(items_per_thread: int, tile: int):
    @cuda.jit
    def difference_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        differences = coop.adjacent_difference(block, items, tile_predecessor_item=source[before_tile(tile)])
        coop.store(block, destination, differences, algorithm="direct", offset=start)

    return difference_tile


def adjacent_difference_right(items_per_thread: int, tile: int):
    @cuda.jit
    def difference_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        differences = coop.adjacent_difference(
            block, items, direction="right", tile_successor_item=source[after_tile(tile)]
        )
        coop.store(block, destination, differences, algorithm="direct", offset=start)

    return difference_tile


def discontinuity_heads(items_per_thread: int, tile: int):
    @cuda.jit
    def flag_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        heads = coop.discontinuity(block, items, tile_predecessor_item=source[before_tile(tile)])
        coop.store(block, destination, heads, algorithm="direct", offset=start)

    return flag_tile


def discontinuity_heads_and_tails(items_per_thread: int, tile: int):
    @cuda.jit
    def flag_tile(source, destination):
        block = coop.this_block()
        items = coop.ThreadData(items_per_thread)
        start = cuda.blockIdx.x * tile
        coop.load(block, source, items, algorithm="direct", offset=start)
        heads, tails = coop.discontinuity(
            block,
            items,
            mode="heads_and_tails",
            tile_predecessor_item=source[before_tile(tile)],
            tile_successor_item=source[after_tile(tile)],
        )
        flags = coop.ThreadData(items_per_thread, dtype=np.int32)
        for i in range(items_per_thread):
            flags[i] = heads[i] | (tails[i] << 1)
        coop.store(block, destination, flags, algorithm="direct", offset=start)

    return flag_tile


def block_histogram(algorithm: str, bins: int, bins_per_thread: int, items_per_thread: int, tile: int):
    @cuda.jit
    def count_tile(source, destination):
        block = coop.this_block()
        samples = coop.ThreadData(items_per_thread)
        coop.load(block, source, samples, algorithm="direct", offset=cuda.blockIdx.x * tile)
        counts = coop.histogram(block, samples, bins=bins, bins_per_thread=bins_per_thread, algorithm=algorithm)
        # the tile's bins in order; slots past the last bin (threads x bins_per_thread > bins) stay unwritten
        coop.store(block, destination, counts, algorithm="striped", offset=cuda.blockIdx.x * bins, valid_items=bins)

    return count_tile


def block_run_length_decode(runs_per_thread: int, decoded_per_thread: int, threads: int, tile: int):
    @cuda.jit
    def decode_tile(source, destination):
        block = coop.this_block()
        start = cuda.blockIdx.x * tile
        values = coop.load(block, source, coop.ThreadData(runs_per_thread), algorithm="direct", offset=start)
        lengths = coop.load(
            block,
            source,
            coop.ThreadData(runs_per_thread),
            algorithm="direct",
            offset=start + threads * runs_per_thread,
        )
        decoded = coop.run_length_decode(block, values, lengths, decoded_items_per_thread=decoded_per_thread)
        coop.store(block, destination, decoded, algorithm="direct", offset=start)

    return decode_tile


NEIGHBOURS = {
    "left": adjacent_difference_left,
    "right": adjacent_difference_right,
    "heads": discontinuity_heads,
    "heads_and_tails": discontinuity_heads_and_tails,
}


def kernel_for(config: configs.Config):
    """A new dispatcher for one row; it compiles on its first launch (or explain)."""
    if config.family == "block":
        return block_copy(config.algorithm, config.items, config.block_tile)
    if config.family == "warp":
        return warp_copy(config.algorithm, config.items, config.threads)
    if config.family == "block_reduce":
        return block_reduce(config.algorithm, config.items, config.block_tile, config.broadcast, config.threads)
    if config.family == "warp_reduce":
        return warp_reduce(config.items, config.threads, config.broadcast)
    if config.family == "warp_reduce_batched":
        return warp_reduce_batched(config.items, config.threads)
    if config.family == "warps_reduce":
        return warps_reduce(config.items, config.threads)
    if config.family == "cluster_reduce":
        return cluster_reduce(config.items, config.threads)
    if config.family == "block_scan":
        return block_scan(config.algorithm, config.operation, config.items, config.block_tile)
    if config.family == "block_exchange":
        return block_exchange(config.algorithm == "timesliced", config.items, config.block_tile)
    if config.family == "warp_exchange":
        return warp_exchange(config.items, config.threads)
    if config.family == "block_shuffle":
        return block_shuffle(config.items, config.block_tile)
    if config.family == "block_radix_sort":
        return block_radix_sort(config.operation == "pairs", config.items, config.block_tile)
    if config.primitive == "merge_sort":
        return merge_sort(config.group, config.items, config.block_tile)
    if config.family == "block_radix_rank":
        return block_radix_rank(config.items, config.block_tile)
    if config.family == "block_topk":
        return block_topk(config.items, config.block_tile)
    if config.family in ("block_adjacent_difference", "block_discontinuity"):
        return NEIGHBOURS[config.operation](config.items, config.block_tile)
    if config.family == "block_histogram":
        return block_histogram(config.algorithm, config.bins, config.bins_per_thread, config.items, config.block_tile)
    if config.family == "block_run_length_decode":
        return block_run_length_decode(config.items, config.decoded_items, config.threads, config.block_tile)
    return warp_scan(config.operation, config.items, config.threads)
