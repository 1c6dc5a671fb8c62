"""Block histograms in Python kernels, launched and compared with np.bincount: every sample
dtype with every counter dtype under both algorithms, hot bins, 8- and 16-bit samples with 256
and 4096 bins, 2-D and 3-D blocks, one sample per thread, fresh counters on every call through
shared scratch, accumulation across tiles, samples outside the bins, which are not counted, and
counters made on either branch of an `if`, stored after it."""

import numpy as np
import pytest
from numba_cuda_mlir import cuda

from cuda import coop

SAMPLE_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
COUNTER_DTYPES = [np.int32, np.uint32, np.int64, np.uint64]
ALGORITHMS = ["atomic", "sort"]


def striped_bincount(samples, bins, slots):
    """What a striped store of the counters writes: the bins in order, then zeros."""
    samples = np.asarray(samples)
    kept = samples[(samples >= 0) & (samples < bins)] if samples.dtype.kind == "i" else samples[samples < bins]
    expected = np.zeros(slots, np.int64)
    expected[:bins] = np.bincount(kept.astype(np.int64), minlength=bins)
    return expected


def tile_kernel(items, bins, per_thread, counter_dtype, algorithm):
    @cuda.jit
    def kernel(source, output, kept):
        block = coop.this_block()
        tile = cuda.blockIdx.x * cuda.blockDim.x * items
        samples = coop.load(block, source, coop.ThreadData(items), offset=tile)
        counts = coop.histogram(
            block, samples, bins=bins, bins_per_thread=per_thread, counter_dtype=counter_dtype, algorithm=algorithm
        )
        coop.store(block, output, counts, algorithm="striped", offset=cuda.blockIdx.x * cuda.blockDim.x * per_thread)
        coop.store(block, kept, samples, offset=tile)

    return kernel


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("counter_dtype", COUNTER_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
@pytest.mark.parametrize("sample_dtype", SAMPLE_DTYPES, ids=lambda dtype: np.dtype(dtype).name)
def test_counts_match_bincount_for_every_sample_and_counter_dtype(sample_dtype, counter_dtype, algorithm):
    threads, items, bins, per_thread = 64, 3, 65, 2
    rng = np.random.default_rng(7)
    source = rng.integers(0, bins, size=2 * threads * items).astype(sample_dtype)
    source[: threads * items] = 64  # the first block: every sample in one hot bin
    output = np.full(2 * threads * per_thread, 99, dtype=counter_dtype)
    kept = np.zeros_like(source)
    tile_kernel(items, bins, per_thread, counter_dtype, algorithm)[2, threads](source, output, kept)
    for block in range(2):
        tile = source[block * threads * items : (block + 1) * threads * items]
        slots = output[block * threads * per_thread : (block + 1) * threads * per_thread]
        np.testing.assert_array_equal(slots, striped_bincount(tile, bins, threads * per_thread))
    assert output.dtype == np.dtype(counter_dtype)
    np.testing.assert_array_equal(kept, source)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    "sample_dtype, bins, threads, items",
    [(np.uint8, 256, 128, 16), (np.uint16, 4096, 256, 8), (np.uint8, 1, 32, 4), (np.int32, 13, 96, 5)],
    ids=["uint8x256", "uint16x4096", "one_bin", "int32x13"],
)
def test_byte_and_short_samples_with_many_bins(algorithm, sample_dtype, bins, threads, items):
    per_thread = -(-bins // threads)
    info = np.iinfo(sample_dtype)
    source = np.random.default_rng(3).integers(0, min(bins, info.max + 1), size=threads * items).astype(sample_dtype)
    output = np.zeros(threads * per_thread, np.int32)
    tile_kernel(items, bins, per_thread, np.int32, algorithm)[1, threads](source, output, np.zeros_like(source))
    np.testing.assert_array_equal(output, striped_bincount(source, bins, threads * per_thread))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("sample_dtype", [np.int8, np.int32, np.uint8, np.uint64], ids=lambda d: np.dtype(d).name)
def test_samples_outside_the_bins_are_not_counted(algorithm, sample_dtype):
    threads, items, bins = 64, 4, 100
    info = np.iinfo(sample_dtype)
    source = np.random.default_rng(11).integers(0, bins, size=threads * items).astype(sample_dtype)
    source[::3] = info.max  # far past the last bin
    source[1::7] = bins  # just past it
    if info.min < 0:
        source[2::5] = -1  # read as unsigned: past it too
    output = np.full(threads * 2, 7, np.int32)
    tile_kernel(items, bins, 2, np.int32, algorithm)[1, threads](source, output, np.zeros_like(source))
    np.testing.assert_array_equal(output, striped_bincount(source, bins, threads * 2))


def shaped_kernel(block_shape, items, bins, per_thread, algorithm):
    threads = block_shape[0] * block_shape[1] * block_shape[2]

    @cuda.jit
    def kernel(source, output):
        block = coop.this_block()
        rank = cuda.threadIdx.x + block_shape[0] * (cuda.threadIdx.y + block_shape[1] * cuda.threadIdx.z)
        samples = coop.ThreadData(items, dtype=np.int32)
        for i in range(items):
            samples[i] = source[rank * items + i]
        counts = coop.histogram(block, samples, bins=bins, bins_per_thread=per_thread, algorithm=algorithm)
        for i in range(per_thread):
            output[rank + i * threads] = counts[i]

    return kernel


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("block_shape", [(8, 4, 2), (32, 3, 1)], ids=["3d", "2d"])
def test_blocks_of_more_dimensions_count_by_linear_rank(algorithm, block_shape):
    threads = block_shape[0] * block_shape[1] * block_shape[2]
    bins, per_thread, items = 97, 2, 3
    source = ((np.arange(threads * items) * 37) % bins).astype(np.int32)
    for data in (source, source[::-1].copy()):  # twice: nothing stale from the first launch
        output = np.full(threads * per_thread, -1, np.int32)
        shaped_kernel(block_shape, items, bins, per_thread, algorithm)[1, block_shape](data, output)
        np.testing.assert_array_equal(output, striped_bincount(data, bins, threads * per_thread))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_sample_per_thread_gives_counters_too(algorithm):
    @cuda.jit
    def kernel(source, output):
        block = coop.this_block()
        counts = coop.histogram(
            block, source[cuda.threadIdx.x], bins=17, bins_per_thread=2, counter_dtype=np.uint64, algorithm=algorithm
        )
        coop.store(block, output, counts, algorithm="striped")

    source = (np.arange(32) * 5 % 17).astype(np.uint32)
    output = np.full(64, 5, np.uint64)
    kernel[1, 32](source, output)
    np.testing.assert_array_equal(output, striped_bincount(source, 17, 64))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_call_starts_from_zero_through_shared_scratch(algorithm):
    @cuda.jit
    def kernel(source, output):
        block = coop.this_block()
        scratch = coop.TempStorage()
        samples = coop.load(block, source, coop.ThreadData(4))
        first = coop.histogram(block, samples, bins=40, algorithm=algorithm, temp_storage=scratch)
        second = coop.histogram(block, samples, bins=40, algorithm=algorithm, temp_storage=scratch)
        first[0] += second[0]
        coop.store(block, output, first, algorithm="striped")

    source = (np.arange(256) % 40).astype(np.int32)
    output = np.zeros(64, np.int32)
    kernel[1, 64](source, output)
    np.testing.assert_array_equal(output, 2 * striped_bincount(source, 40, 64))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_counts_accumulate_across_tiles_in_a_payload_of_ones_own(algorithm):
    @cuda.jit
    def kernel(source, output, tiles):
        block = coop.this_block()
        total = coop.ThreadData(2, dtype=np.int64)
        for i in range(2):
            total[i] = 0
        for tile in range(tiles):
            samples = coop.load(block, source, coop.ThreadData(4), offset=tile * 256)
            counts = coop.histogram(
                block, samples, bins=65, bins_per_thread=2, counter_dtype=np.int64, algorithm=algorithm
            )
            for i in range(2):
                total[i] += counts[i]
        coop.store(block, output, total, algorithm="striped", valid_items=65)

    source = np.random.default_rng(5).integers(0, 65, size=3 * 256).astype(np.uint8)
    output = np.zeros(65, np.int64)
    kernel[1, 64](source, output, 3)
    np.testing.assert_array_equal(output, np.bincount(source, minlength=65))


@cuda.jit
def either_algorithm(source, output, use_sort):
    block = coop.this_block()
    samples = coop.load(block, source, coop.ThreadData(4))
    if use_sort:  # results of one extent and dtype from either path: one payload after the join
        counts = coop.histogram(block, samples, bins=80, bins_per_thread=2, algorithm="sort")
    else:
        counts = coop.histogram(block, samples, bins=80, bins_per_thread=2)
    coop.store(block, output, counts, algorithm="striped", valid_items=80)


@pytest.mark.parametrize("use_sort", [False, True])
def test_counters_made_on_either_branch_are_one_payload_after_it(use_sort):
    source = (np.arange(256) * 7 % 80).astype(np.int32)
    output = np.full(80, -1, np.int32)
    either_algorithm[1, 64](source, output, use_sort)
    np.testing.assert_array_equal(output, np.bincount(source, minlength=80))


@cuda.jit
def byte_histogram(data, total):
    block = coop.this_block()
    samples = coop.load(block, data, coop.ThreadData(16), offset=cuda.blockIdx.x * 2048)
    counts = coop.histogram(block, samples, bins=256, bins_per_thread=2)
    for i in range(2):
        index = cuda.threadIdx.x + i * 128
        if index < 256 and counts[i] != 0:
            cuda.atomic.add(total, index, counts[i])


def test_the_reference_example_merges_block_histograms():
    data = np.random.default_rng(0).integers(0, 256, 2048 * 64, dtype=np.uint8)
    total = np.zeros(256, dtype=np.int32)
    byte_histogram[64, 128](data, total)
    np.testing.assert_array_equal(total, np.bincount(data, minlength=256))
