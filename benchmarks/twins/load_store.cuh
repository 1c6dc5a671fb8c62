// The CUDA C++ twins of the Python tile-copy kernels (benchmarks/coop_kernels.py):
// each block (block family) or each warp of 32 lanes (warp family) loads its tile
// with CUB and stores it back with the same algorithm, the way a CUDA C++ user
// writes it. Scratch is one union of the load's and the store's TempStorage in
// static shared memory, and a barrier separates the two calls when they use it,
// as cuda.coop places them (one "reuse" region; __syncthreads for a block,
// __syncwarp for a warp). benchmarks/twins.py instantiates these templates once
// per configuration as extern "C" kernels named after the row.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_store.cuh>

template <typename T, int BLOCK, int ITEMS, cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE, bool SCRATCH>
__device__ __forceinline__ void block_copy(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, LOAD, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, STORE, 1, 1>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
  } scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  Load(scratch.load).Load(source + tile, items);
  if constexpr (SCRATCH) __syncthreads();
  Store(scratch.store).Store(destination + tile, items);
}

template <typename T, int BLOCK, int ITEMS, cub::WarpLoadAlgorithm LOAD, cub::WarpStoreAlgorithm STORE, bool SCRATCH>
__device__ __forceinline__ void warp_copy(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, LOAD, WARP>;
  using Store = cub::WarpStore<T, ITEMS, STORE, WARP>;
  __shared__ union {
    typename Load::TempStorage load[BLOCK / WARP];
    typename Store::TempStorage store[BLOCK / WARP];
  } scratch;
  const int warp = threadIdx.x / WARP;
  const auto tile = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP * (WARP * ITEMS);
  T items[ITEMS];
  Load(scratch.load[warp]).Load(source + tile, items);
  if constexpr (SCRATCH) __syncwarp();
  Store(scratch.store[warp]).Store(destination + tile, items);
}
