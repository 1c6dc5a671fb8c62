"""The seed's groups, TempStorage, ThreadData and qualified namespace on the GPU:
group queries against the x-major arithmetic they stand for, a thread group's
reduction, every TempStorage policy moving a tile unchanged, and IntEnum selectors."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

import cuda.coop.numba_mlir as qualified
from cuda import coop

QUERIES = 10  # values each thread writes


@cuda.jit
def query_everything(out, wide, members):
    block = coop.this_block()
    warp = coop.this_warp()
    eight = warp.group_by(8)
    pair = block.group_by(2)
    me = coop.this_thread()
    t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.z * cuda.blockDim.x * cuda.blockDim.y
    out[t * QUERIES + 0] = eight.rank()
    out[t * QUERIES + 1] = eight.rank("warp")
    out[t * QUERIES + 2] = pair.rank("warp")
    out[t * QUERIES + 3] = pair.rank(level="block")
    out[t * QUERIES + 4] = block.count("warp")
    out[t * QUERIES + 5] = me.rank("warp")
    out[t * QUERIES + 6] = pair.is_member()
    out[t * QUERIES + 7] = block.rank()
    out[t * QUERIES + 8] = warp.rank_as(np.int32, "block")
    out[t * QUERIES + 9] = eight.count("warp")
    wide[t] = block.rank("grid") * 1000 + warp.count("grid")
    members[t] = coop.this_warp().group_by(12, exhaustive=False).is_member()
    eight.sync()
    warp.sync()
    block.sync()


@pytest.mark.parametrize("shape", [(128, 1, 1), (32, 4, 1), (64, 2, 2)])
def test_group_queries_give_the_x_major_ranks(shape):
    threads = shape[0] * shape[1] * shape[2]
    out = cuda.to_device(np.zeros(threads * QUERIES, np.uint32))
    wide = cuda.to_device(np.zeros(threads, np.uint64))
    members = cuda.to_device(np.zeros(threads, np.uint8))
    query_everything[1, shape](out, wide, members)
    got = out.copy_to_host().reshape(threads, QUERIES)
    t = np.arange(threads)
    expected = np.stack(
        [
            t % 8,
            (t % 32) // 8,
            (t // 32) % 2,
            t // 64,
            np.full(threads, threads // 32),
            t % 32,
            np.ones(threads),
            t,
            t // 32,
            np.full(threads, 4),
        ],
        axis=1,
    )
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(wide.copy_to_host(), np.full(threads, threads // 32))
    np.testing.assert_array_equal(members.copy_to_host(), (t % 32 < 24).astype(np.uint8))


@cuda.jit
def grid_ranks(out):
    block = coop.this_block()
    out[block.rank("grid")] = block.count("grid")


def test_a_blocks_rank_in_the_grid_is_its_index():
    out = cuda.to_device(np.zeros(6, np.uint64))
    grid_ranks[(3, 2), 64](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.full(6, 6))


@cuda.jit
def thread_sums(values, out):
    me = coop.this_thread()
    out[cuda.threadIdx.x] = coop.sum(me, values[cuda.threadIdx.x]) + me.count("thread") * 0 + me.rank()


def test_a_thread_group_reduces_to_its_own_value():
    values = np.arange(64, dtype=np.int32) * 3
    out = cuda.to_device(np.zeros(64, np.int32))
    thread_sums[1, 64](cuda.to_device(values), out)
    np.testing.assert_array_equal(out.copy_to_host(), values)


def storage_copy(size_in_bytes, alignment, auto_sync, sharing):
    manual = auto_sync is False  # the caller places the barriers
    extra = alignment or 0

    @cuda.jit
    def copy(source, destination):
        block = coop.this_block()
        scratch = coop.TempStorage(size_in_bytes, alignment=alignment, auto_sync=auto_sync, sharing=sharing)
        items = coop.ThreadData(4)
        for tile in range(2):
            coop.load(block, source, items, algorithm="transpose", offset=tile * 512, temp_storage=scratch)
            if manual:
                cuda.syncthreads()
            for i in range(items.items_per_thread):
                items[i] = items[i] + extra
            coop.store(block, destination, items, algorithm="transpose", offset=tile * 512, temp_storage=scratch)
            if manual:
                cuda.syncthreads()

    return copy


@pytest.mark.parametrize(
    "size_in_bytes, alignment, auto_sync, sharing",
    [
        (None, None, None, "shared"),
        (None, None, None, "exclusive"),
        (None, 16, True, "shared"),
        (None, None, False, "shared"),
        (8192, None, None, "shared"),
        (64 * 1024, 16, True, "exclusive"),  # dynamic shared memory
    ],
)
def test_every_temp_storage_policy_moves_the_tile_unchanged(size_in_bytes, alignment, auto_sync, sharing):
    source = np.arange(1024, dtype=np.int32)
    destination = cuda.to_device(np.zeros(1024, np.int32))
    storage_copy(size_in_bytes, alignment, auto_sync, sharing)[1, 128](cuda.to_device(source), destination)
    np.testing.assert_array_equal(destination.copy_to_host(), source + (alignment or 0))


@cuda.jit
def qualified_copy(source, destination):
    block = qualified.this_block()
    items = qualified.ThreadData(4, dtype=None, alignment=None)
    qualified.load(block, source, items, algorithm=qualified.BlockLoadAlgorithm.WARP_TRANSPOSE)
    qualified.store(block, destination, items, algorithm="Warp-Transpose")


def test_intenum_and_spelled_selectors_run():
    source = np.arange(512, dtype=np.float32)
    destination = cuda.to_device(np.zeros(512, np.float32))
    qualified_copy[1, 128](cuda.to_device(source), destination)
    np.testing.assert_array_equal(destination.copy_to_host(), source)


LOGICAL_WARPS = coop.this_warp().group_by(8)
WHOLE_BLOCK = coop.this_block()


@cuda.jit
def module_level_sums(values, out):
    per_eight = coop.sum(LOGICAL_WARPS, values[cuda.threadIdx.x])
    total = coop.sum(WHOLE_BLOCK, values[cuda.threadIdx.x])
    if LOGICAL_WARPS.rank() == 0:
        out[cuda.threadIdx.x // 8] = per_eight
    if WHOLE_BLOCK.rank() == 0:
        out[16] = total


def test_module_level_descriptors_run_as_kernel_globals():
    values = np.arange(128, dtype=np.int32)
    out = cuda.to_device(np.zeros(17, np.int32))
    module_level_sums[1, 128](cuda.to_device(values), out)
    got = out.copy_to_host()
    np.testing.assert_array_equal(got[:16], values.reshape(16, 8).sum(axis=1))
    assert got[16] == values.sum()


def reserving_kernel(sharing, count, dtype):
    @cuda.jit
    def keep_across_calls(source, scanned, kept, flags):
        storage = coop.TempStorage(sharing=sharing)
        marks = storage.reserve(3, np.uint8)
        values = storage.reserve(count, dtype, alignment=64)
        thread = cuda.threadIdx.x
        if thread < 3:
            marks[thread] = 200 + thread
        for i in range(thread, count, cuda.blockDim.x):
            values[i] = i * 3
        cuda.syncthreads()
        block = coop.this_block()
        items = coop.ThreadData(4)
        coop.load(block, source, items, algorithm="transpose", temp_storage=storage)
        result = coop.inclusive_sum(block, items, temp_storage=storage)
        coop.store(block, scanned, result, algorithm="transpose", temp_storage=storage)
        cuda.syncthreads()
        for i in range(thread, count, cuda.blockDim.x):
            kept[i] = values[count - 1 - i]
        if thread < 3:
            flags[thread] = marks[thread]

    return keep_across_calls


@pytest.mark.parametrize("count", [96, 14 * 1024], ids=["small", "past_48KiB"])
@pytest.mark.parametrize("sharing", ["shared", "exclusive"])
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_reserved_arrays_survive_the_calls_that_share_their_storage(dtype, sharing, count):
    source = np.random.default_rng(5).integers(-9, 9, size=512).astype(np.int32)
    scanned, kept, flags = np.zeros_like(source), np.zeros(count, dtype), np.zeros(3, np.uint8)
    reserving_kernel(sharing, count, dtype)[1, 128](source, scanned, kept, flags)
    cuda.synchronize()
    np.testing.assert_array_equal(scanned, np.cumsum(source))
    np.testing.assert_array_equal(kept, (np.arange(count) * 3)[::-1].astype(dtype))
    np.testing.assert_array_equal(flags, [200, 201, 202])


@cuda.jit
def sums_of_groups_and_local_tiles(source, totals, copied, lanes, items_per_thread):
    # Both counts are kernel arguments: the kernel is specialized on their values.
    t = cuda.threadIdx.x
    totals[t] = coop.sum(coop.this_warp().group_by(lanes), source[t])
    items = cuda.local.array(items_per_thread, np.int32)
    coop.load(coop.this_block(), source, items)
    coop.store(coop.this_block(), copied, items)


@pytest.mark.parametrize(("lanes", "items"), [(8, 1), (16, 4)])
def test_counts_given_as_kernel_arguments_specialize_the_kernel(lanes, items):
    source = np.random.default_rng(2).integers(-20, 20, size=128 * items).astype(np.int32)
    totals, copied = np.zeros(128, np.int32), np.zeros_like(source)
    sums_of_groups_and_local_tiles[1, 128](source, totals, copied, lanes, items)
    cuda.synchronize()
    np.testing.assert_array_equal(totals, np.repeat(source[:128].reshape(-1, lanes).sum(axis=1), lanes))
    np.testing.assert_array_equal(copied, source)


@cuda.jit
def grid_queries(ranks, counts, blocks, warps):
    grid = coop.this_grid()
    t = grid.rank()
    ranks[t] = t
    counts[t] = grid.count()
    blocks[t] = grid.rank("block") * 100 + grid.count("block")
    warps[t] = grid.rank("warp") * 100 + grid.count("warp")


@pytest.mark.parametrize(("grid", "block"), [(3, 128), ((2, 2), (32, 2))])
def test_grid_queries_place_each_thread_in_the_launch(grid, block):
    blocks_n = np.prod(grid)
    threads = int(np.prod(block))
    total = int(blocks_n * threads)
    ranks, counts, blocks, warps = (np.zeros(total, np.uint64) for _ in range(4))
    grid_queries[grid, block](ranks, counts, blocks, warps)
    cuda.synchronize()
    np.testing.assert_array_equal(ranks, np.arange(total))
    np.testing.assert_array_equal(counts, np.full(total, total))
    block_of = np.arange(total) // threads
    np.testing.assert_array_equal(blocks, block_of * 100 + blocks_n)
    warp_of = block_of * (threads // 32) + (np.arange(total) % threads) // 32
    np.testing.assert_array_equal(warps, warp_of * 100 + blocks_n * (threads // 32))


# -- reductions over groups of warps (this_block().group_by(n))


def groups_of_warps_kernel(warps: int, exhaustive: bool, broadcast: bool):
    @cuda.jit
    def reduce_groups(values, sums, maxima, repeated):
        groups = coop.this_block().group_by(warps, exhaustive=exhaustive)
        t = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
        items = coop.ThreadData(3, np.int64)
        for i in range(3):
            items[i] = values[t * 3 + i]
        sums[t] = coop.sum(groups, items, broadcast=broadcast)
        maxima[t] = coop.reduce(groups, values[t * 3], binary_op="max", broadcast=broadcast)
        total = 0  # the same call again: its scratch is the group's own to reuse
        for _ in range(2):
            total += coop.sum(groups, values[t * 3])
        repeated[t] = total

    return reduce_groups


@pytest.mark.parametrize(
    "shape, warps, exhaustive, broadcast",
    [
        ((256, 1), 2, True, True),
        ((256, 1), 2, True, False),
        ((64, 4), 1, True, True),  # one warp per group: shuffles only
        ((256, 1), 3, False, True),  # 8 warps: two groups of three, two warps in none (they read 0)
        ((1024, 1), 4, True, True),
        ((480, 1), 15, True, True),
    ],
)
def test_groups_of_warps_reduce_to_their_own_total(shape, warps, exhaustive, broadcast):
    threads = shape[0] * shape[1]
    rng = np.random.default_rng(warps * 7 + threads)
    values = rng.integers(-1000, 1000, size=threads * 3, dtype=np.int64)
    outputs = [cuda.to_device(np.full(threads, -1, np.int64)) for _ in range(3)]
    groups_of_warps_kernel(warps, exhaustive, broadcast)[1, shape](cuda.to_device(values), *outputs)
    sums, maxima, repeated = (out.copy_to_host() for out in outputs)
    group_threads = 32 * warps
    groups = threads // group_threads
    per_thread = values.reshape(threads, 3)
    for g in range(groups):
        members = slice(g * group_threads, (g + 1) * group_threads)
        checked = slice(None) if broadcast else slice(0, 1)  # broadcast=False: rank 0 only
        assert (sums[members][checked] == per_thread[members].sum()).all()
        assert (maxima[members][checked] == per_thread[members, 0].max()).all()
        assert (repeated[members] == 2 * per_thread[members, 0].sum()).all()
    outside = slice(groups * group_threads, threads)  # members of no group
    assert (sums[outside] == 0).all() and (maxima[outside] == 0).all() and (repeated[outside] == 0).all()


@cuda.jit
def first_group_only(values, out):
    pairs = coop.this_block().group_by(2)
    t = cuda.threadIdx.x
    if pairs.rank("block") == 0:  # the other groups never reach the call: its barrier is the group's own
        out[t] = coop.sum(pairs, values[t])
    else:
        out[t] = -1


def test_a_group_of_warps_reduces_while_its_siblings_take_another_path():
    values = np.arange(256, dtype=np.int32)
    out = cuda.to_device(np.zeros(256, np.int32))
    first_group_only[1, 256](cuda.to_device(values), out)
    got = out.copy_to_host()
    assert (got[:64] == values[:64].sum()).all()
    assert (got[64:] == -1).all()


@cuda.jit
def pairs_then_quads(values, pair_sums, quad_sums):
    pairs = coop.this_block().group_by(2)
    quads = coop.this_block().group_by(4)
    t = cuda.threadIdx.x
    pair_sums[t] = coop.sum(pairs, values[t])
    quad_sums[t] = coop.reduce(quads, np.float64(values[t]), binary_op="max")  # other dtype, other layout


def test_groups_of_different_sizes_share_scratch_in_turn():
    values = np.random.default_rng(4).integers(-50, 50, 512).astype(np.int32)
    pair_sums, quad_sums = cuda.to_device(np.zeros(512, np.int32)), cuda.to_device(np.zeros(512, np.float64))
    pairs_then_quads[1, 512](cuda.to_device(values), pair_sums, quad_sums)
    assert (pair_sums.copy_to_host() == np.repeat(values.reshape(8, 64).sum(axis=1), 64)).all()
    assert (quad_sums.copy_to_host() == np.repeat(values.reshape(4, 128).max(axis=1), 128)).all()


@cuda.jit
def pass_between_warps(values, out, rounds):
    pairs = coop.this_block().group_by(2)
    t = cuda.threadIdx.x
    partner = t ^ 32  # the same lane of the pair's other warp
    value = values[t]
    laps = 3 if pairs.rank("block") == 0 else 1  # siblings wait on their own barriers a different number of times
    for _ in range(laps):
        out[t] = value
        pairs.sync()
        value = out[partner] + 1
        pairs.sync()  # every read before the next lap's writes
    rounds[t] = value


def test_a_group_of_warps_syncs_on_its_own_barrier():
    values = np.arange(256, dtype=np.int32)
    out, rounds = cuda.to_device(np.zeros(256, np.int32)), cuda.to_device(np.zeros(256, np.int32))
    pass_between_warps[1, 256](cuda.to_device(values), out, rounds)
    got = rounds.copy_to_host()
    partner = np.arange(256) ^ 32
    np.testing.assert_array_equal(got[:64], partner[:64] + 3)  # each lap passes the value across and adds one
    np.testing.assert_array_equal(got[64:], partner[64:] + 1)


@cuda.jit
def bytes_of_the_storage(values, out):
    block = coop.this_block()
    scratch = coop.TempStorage(4096, alignment=16)  # the transposing load's scratch: 256 x 4 int32
    items = coop.ThreadData(4)
    coop.load(block, values, items, algorithm="transpose", temp_storage=scratch)
    t = cuda.threadIdx.x
    cuda.syncthreads()  # the load is done with the bytes: the kernel's to use now
    scratch[t] = t % 200
    cuda.syncthreads()
    out[t] = items[0] * 1000 + scratch[(t + 1) % cuda.blockDim.x]


def test_indexing_a_temp_storage_reads_and_writes_its_bytes():
    values = np.arange(4 * 256, dtype=np.int32)
    out = cuda.to_device(np.zeros(256, np.int32))
    bytes_of_the_storage[1, 256](cuda.to_device(values), out)
    t = np.arange(256)
    np.testing.assert_array_equal(out.copy_to_host(), values[t * 4] * 1000 + ((t + 1) % 256) % 200)


PLACES = 6  # values each thread writes


@cuda.jit
def places_of_partitions(out):
    sixteen = coop.this_warp().group_by(16)
    pair = coop.this_block().group_by(2)
    g = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) * PLACES
    out[g + 0] = sixteen.rank("block")  # what users wrote by hand as threadIdx.x // 16
    out[g + 1] = sixteen.rank("grid")
    out[g + 2] = sixteen.count("block")
    out[g + 3] = sixteen.count("grid")
    out[g + 4] = pair.rank("grid")
    out[g + 5] = pair.count("grid")


def test_a_logical_warp_and_a_group_of_warps_know_their_place():
    blocks, threads = 3, 256
    out = cuda.to_device(np.zeros(blocks * threads * PLACES, np.uint64))
    places_of_partitions[blocks, threads](out)
    got = out.copy_to_host().reshape(blocks * threads, PLACES)
    b, t = np.divmod(np.arange(blocks * threads), threads)
    expected = np.stack(
        [t // 16, b * 16 + t // 16, np.full_like(t, 16), np.full_like(t, 48), b * 4 + t // 64, np.full_like(t, 12)],
        axis=1,
    )
    np.testing.assert_array_equal(got, expected)
