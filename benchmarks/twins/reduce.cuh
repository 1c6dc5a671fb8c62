// The CUDA C++ twins of the Python reduction kernels (benchmarks/coop_kernels.py):
// each block (block_reduce) or each warp of 32 lanes (warp_reduce) loads its tile
// direct with CUB, sums it, and its first thread writes the sum. The load is
// direct (no scratch), so the reduction is the kernel's one scratch user and
// cuda.coop places no barrier; neither do the twins. benchmarks/twins.py
// instantiates these templates once per configuration as extern "C" kernels named
// after the row.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/std/functional>

template <typename T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALGORITHM>
__device__ __forceinline__ void block_reduce(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Reduce = cub::BlockReduce<T, BLOCK, ALGORITHM, 1, 1>;
  __shared__ typename Reduce::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  Load().Load(source + tile, items);
  const T total = Reduce(scratch).Sum(items);
  if (threadIdx.x == 0) destination[blockIdx.x] = total;
}

// CUB's WarpReduce takes one value per lane: the thread's items are reduced in
// the thread first (cub::ThreadReduce, as BlockReduce::Sum does with an array),
// then across the warp, as cuda.coop composes it (engine/src/catalog/reduce.cpp).
template <typename T, int BLOCK, int ITEMS>
__device__ __forceinline__ void warp_reduce(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, cub::WARP_LOAD_DIRECT, WARP>;
  using Reduce = cub::WarpReduce<T, WARP>;
  __shared__ typename Reduce::TempStorage scratch[BLOCK / WARP];
  const auto index = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP;
  T items[ITEMS];
  Load().Load(source + index * (WARP * ITEMS), items);
  const T partial = cub::ThreadReduce(items, ::cuda::std::plus<>{});
  const T total = Reduce(scratch[threadIdx.x / WARP]).Sum(partial);
  if (threadIdx.x % WARP == 0) destination[index] = total;
}
