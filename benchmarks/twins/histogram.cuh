// The CUDA C++ twin of the Python histogram kernel (benchmarks/coop_kernels.py): each block loads
// its tile of samples direct with CUB, counts them with cub::BlockHistogram through the adapter
// cuda.coop's engine embeds (engine/src/adapters/block_histogram_counts.cuh, on the include path:
// the same source, so the same counters beside CUB's TempStorage in shared memory, the same
// mapping of samples outside the bins and the same striped read-out with its barrier), and stores
// the tile's BINS counters striped at blockIdx.x x BINS, the slots past the last bin unwritten.
// The load and store use no scratch, so the histogram is the kernel's one scratch user and
// cuda.coop places no barrier around it; neither does the twin. benchmarks/twins.py instantiates
// this template once per configuration.
#pragma once

#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "block_histogram_counts.cuh"

template <typename T, int BLOCK, int ITEMS, int BINS, cub::BlockHistogramAlgorithm ALGORITHM>
__device__ __forceinline__ void block_histogram(const T* source, int* destination) {
  constexpr int BINS_PER_THREAD = (BINS + BLOCK - 1) / BLOCK;
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Histogram = coop_adapt::BlockHistogramCounts<T, BLOCK, ITEMS, BINS, ALGORITHM, 1, 1, int, BINS_PER_THREAD>;
  using Store = cub::BlockStore<int, BLOCK, BINS_PER_THREAD, cub::BLOCK_STORE_STRIPED, 1, 1>;
  __shared__ typename Histogram::TempStorage scratch;
  T samples[ITEMS];
  int counts[BINS_PER_THREAD];
  Load().Load(source + static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS), samples);
  Histogram(scratch).Histogram(samples, counts);
  Store().Store(destination + static_cast<long long>(blockIdx.x) * BINS, counts, BINS);
}
