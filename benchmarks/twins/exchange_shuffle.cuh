// The CUDA C++ twins of the Python exchange and shuffle kernels (benchmarks/coop_kernels.py):
// each block (block_exchange, block_shuffle) or each warp of 32 lanes (warp_exchange) loads
// its tile direct with CUB; an exchange turns it blocked-to-striped and stores it striped
// (the output is the input: a copy whose store is coalesced), a shuffle shifts it up by one
// item and stores it direct. The result is a second array, as cuda.coop's fresh payload is;
// a shuffle's result starts as a copy of the input, as cuda.coop's does (engine/src/catalog/
// families/shuffle.cpp). The loads and stores use no scratch, so the exchange or shuffle is
// the kernel's one scratch user and cuda.coop places no barrier; neither do the twins.
// benchmarks/twins.py instantiates these templates once per configuration.
#pragma once

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_shuffle.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_store.cuh>

template <typename T, int BLOCK, int ITEMS, bool TIME_SLICED>
__device__ __forceinline__ void block_exchange(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Exchange = cub::BlockExchange<T, BLOCK, ITEMS, TIME_SLICED, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_STRIPED, 1, 1>;
  __shared__ typename Exchange::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  T striped[ITEMS];
  Load().Load(source + tile, items);
  Exchange(scratch).BlockedToStriped(items, striped);
  Store().Store(destination + tile, striped);
}

template <typename T, int BLOCK, int ITEMS>
__device__ __forceinline__ void warp_exchange(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, cub::WARP_LOAD_DIRECT, WARP>;
  using Exchange = cub::WarpExchange<T, ITEMS, WARP>;
  using Store = cub::WarpStore<T, ITEMS, cub::WARP_STORE_STRIPED, WARP>;
  __shared__ typename Exchange::TempStorage scratch[BLOCK / WARP];
  const auto tile = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP * (WARP * ITEMS);
  T items[ITEMS];
  T striped[ITEMS];
  Load().Load(source + tile, items);
  Exchange(scratch[threadIdx.x / WARP]).BlockedToStriped(items, striped);
  Store().Store(destination + tile, striped);
}

template <typename T, int BLOCK, int ITEMS>
__device__ __forceinline__ void block_shuffle(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Shuffle = cub::BlockShuffle<T, BLOCK, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Shuffle::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  T shifted[ITEMS];
  Load().Load(source + tile, items);
  for (int i = 0; i < ITEMS; ++i) shifted[i] = items[i];
  Shuffle(scratch).Up(items, shifted);
  Store().Store(destination + tile, shifted);
}
