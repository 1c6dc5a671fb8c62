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

#include <cooperative_groups.h>
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

// A group of WARPS consecutive warps (cuda.coop's this_block().group_by(WARPS)): CUB has no
// class for it, so the twin composes it as a CUDA C++ programmer would and as cuda.coop
// does: WarpReduce in each warp, the warps' totals through shared memory between two waits
// on the group's own named barrier; the group's first thread writes the sum.
template <typename T, int BLOCK, int ITEMS, int WARPS>
__device__ __forceinline__ void warps_reduce(const T* source, T* destination) {
  constexpr int WARP = 32;
  constexpr int GROUP = WARP * WARPS;
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Reduce = cub::WarpReduce<T, WARP>;
  __shared__ typename Reduce::TempStorage scratch[BLOCK / WARP];
  __shared__ T partials[BLOCK / WARP];
  T items[ITEMS];
  Load().Load(source + static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS), items);
  const int warp = threadIdx.x / WARP;
  const int group = threadIdx.x / GROUP;
  const T warp_total = Reduce(scratch[warp]).Sum(cub::ThreadReduce(items, ::cuda::std::plus<>{}));
  if (threadIdx.x % WARP == 0) partials[warp] = warp_total;
  asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "n"(GROUP) : "memory");
  T total = partials[group * WARPS];
#pragma unroll
  for (int i = 1; i < WARPS; ++i) total += partials[group * WARPS + i];
  asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "n"(GROUP) : "memory");
  if (threadIdx.x % GROUP == 0) destination[static_cast<long long>(blockIdx.x) * (BLOCK / GROUP) + group] = total;
}

// A thread block cluster of BLOCKS blocks (cuda.coop's this_cluster()), as a CUDA C++
// programmer writes it with cooperative groups: BlockReduce in each block, then every
// thread reads the blocks' totals from their shared memory after the cluster's barrier,
// and a second barrier keeps them until all have read; the cluster's first thread writes
// the sum.
template <typename T, int BLOCK, int ITEMS, int BLOCKS>
__device__ __forceinline__ void cluster_reduce(const T* source, T* destination) {
  namespace cg = cooperative_groups;
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Reduce = cub::BlockReduce<T, BLOCK, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 1, 1>;
  __shared__ typename Reduce::TempStorage scratch;
  __shared__ T block_total;
  T items[ITEMS];
  Load().Load(source + static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS), items);
  const T mine = Reduce(scratch).Sum(items);
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) block_total = mine;
  cluster.sync();
  T total = *cluster.map_shared_rank(&block_total, 0);
#pragma unroll
  for (int rank = 1; rank < BLOCKS; ++rank) total += *cluster.map_shared_rank(&block_total, rank);
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) destination[blockIdx.x / BLOCKS] = total;
}
