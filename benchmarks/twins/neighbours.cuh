// The CUDA C++ twins of the Python neighbour kernels (benchmarks/coop_kernels.py): each block
// loads its tile direct with CUB, reads the item before its tile (or after it) from the source,
// the grid's tiles forming a cycle as in the Python kernels, takes each item's difference to its
// left or right neighbour (cub::BlockAdjacentDifference) or flags the heads of runs, or their
// heads and tails (cub::BlockDiscontinuity, cuda.coop's default predicate a != b), into a second
// array as cuda.coop's fresh payload is, and stores it direct. Heads and tails are stored as one
// int32 per item, head | tail << 1, as the Python kernel combines them. The loads and stores use
// no scratch, so the difference or the flags are the kernel's one scratch user and cuda.coop
// places no barrier; neither do the twins. benchmarks/twins.py instantiates these templates once
// per configuration.
#pragma once

#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/std/functional>

// The index of the item before the block's tile (the grid's last for the first block) and after
// it (the first for the last block), as coop_kernels.before_tile and after_tile compute them.
template <int TILE>
__device__ __forceinline__ long long before_tile() {
  return static_cast<long long>((blockIdx.x > 0 ? blockIdx.x : gridDim.x) - 1) * TILE + (TILE - 1);
}

template <int TILE>
__device__ __forceinline__ long long after_tile() {
  return blockIdx.x < gridDim.x - 1 ? (static_cast<long long>(blockIdx.x) + 1) * TILE : 0;
}

template <typename T, int BLOCK, int ITEMS, bool LEFT>
__device__ __forceinline__ void block_adjacent_difference(const T* source, T* destination) {
  constexpr int TILE = BLOCK * ITEMS;
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Difference = cub::BlockAdjacentDifference<T, BLOCK, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Difference::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * TILE;
  T items[ITEMS];
  T differences[ITEMS];
  Load().Load(source + tile, items);
  if constexpr (LEFT) {
    Difference(scratch).SubtractLeft(items, differences, ::cuda::std::minus<>{}, source[before_tile<TILE>()]);
  } else {
    Difference(scratch).SubtractRight(items, differences, ::cuda::std::minus<>{}, source[after_tile<TILE>()]);
  }
  Store().Store(destination + tile, differences);
}

// HEADS_AND_TAILS: FlagHeadsAndTails with both neighbours; else FlagHeads with the predecessor.
template <typename T, int BLOCK, int ITEMS, bool HEADS_AND_TAILS>
__device__ __forceinline__ void block_discontinuity(const T* source, int* destination) {
  constexpr int TILE = BLOCK * ITEMS;
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Discontinuity = cub::BlockDiscontinuity<T, BLOCK, 1, 1>;
  using Store = cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Discontinuity::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * TILE;
  T items[ITEMS];
  int heads[ITEMS];
  Load().Load(source + tile, items);
  if constexpr (HEADS_AND_TAILS) {
    int tails[ITEMS];
    Discontinuity(scratch).FlagHeadsAndTails(heads, source[before_tile<TILE>()], tails, source[after_tile<TILE>()],
                                             items, ::cuda::std::not_equal_to<>{});
    int flags[ITEMS];
    for (int i = 0; i < ITEMS; ++i) flags[i] = heads[i] | (tails[i] << 1);
    Store().Store(destination + tile, flags);
  } else {
    Discontinuity(scratch).FlagHeads(heads, items, ::cuda::std::not_equal_to<>{}, source[before_tile<TILE>()]);
    Store().Store(destination + tile, heads);
  }
}
