// The CUDA C++ twins of the Python reduction kernels (benchmarks/coop_kernels.py):
// each block (block_reduce) or each warp of 32 lanes (warp_reduce) loads its tile
// direct with CUB, sums it, and its first thread writes the sum; with BROADCAST the
// sum reaches every thread as cuda.coop broadcasts it (a block's through a slot
// beside the scratch and one barrier, a warp's by a shuffle) and the group's last
// thread writes it, so the broadcast is needed. The load is
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

template <typename Storage, typename T>
struct WithResult {
  Storage storage;
  T result;
};

template <typename T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALGORITHM, bool BROADCAST>
__device__ __forceinline__ void block_reduce(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Reduce = cub::BlockReduce<T, BLOCK, ALGORITHM, 1, 1>;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  Load().Load(source + tile, items);
  if constexpr (BROADCAST) {
    __shared__ WithResult<typename Reduce::TempStorage, T> scratch;
    const T first_thread_total = Reduce(scratch.storage).Sum(items);
    if (threadIdx.x == 0) scratch.result = first_thread_total;
    __syncthreads();
    const T total = scratch.result;
    if (threadIdx.x == BLOCK - 1) destination[blockIdx.x] = total;
  } else {
    __shared__ typename Reduce::TempStorage scratch;
    const T total = Reduce(scratch).Sum(items);
    if (threadIdx.x == 0) destination[blockIdx.x] = total;
  }
}

// CUB's WarpReduce takes one value per lane: the thread's items are reduced in
// the thread first (cub::ThreadReduce, as BlockReduce::Sum does with an array),
// then across the warp, as cuda.coop composes it (engine/src/catalog/reduce.cpp).
template <typename T, int BLOCK, int ITEMS, bool BROADCAST>
__device__ __forceinline__ void warp_reduce(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, cub::WARP_LOAD_DIRECT, WARP>;
  using Reduce = cub::WarpReduce<T, WARP>;
  __shared__ typename Reduce::TempStorage scratch[BLOCK / WARP];
  const auto index = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP;
  T items[ITEMS];
  Load().Load(source + index * (WARP * ITEMS), items);
  const T partial = cub::ThreadReduce(items, ::cuda::std::plus<>{});
  const T first_lane_total = Reduce(scratch[threadIdx.x / WARP]).Sum(partial);
  if constexpr (BROADCAST) {
    const T total = cub::ShuffleIndex<WARP>(first_lane_total, 0, 0xffffffffu);
    if (threadIdx.x % WARP == WARP - 1) destination[index] = total;
  } else if (threadIdx.x % WARP == 0) {
    destination[index] = first_lane_total;
  }
}
