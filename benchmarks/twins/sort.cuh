// The CUDA C++ twins of the Python sorting kernels (benchmarks/coop_kernels.py), written as a
// CUDA C++ programmer would with the same CUB: each block (or each warp of 32 lanes, for
// warp_merge_sort) loads its tile direct, sorts, ranks or selects from it in place, and
// stores the result direct. cuda.coop hands CUB a copy of the keys (its results are fresh
// payloads); in registers the copy costs nothing. The loads and stores use no scratch, so the
// collective is the kernel's one scratch user and needs no barrier.
// benchmarks/twins.py instantiates these templates once per configuration.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/radix_rank_sort_operations.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_store.cuh>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#if __has_include(<cub/block/block_topk.cuh>)
#include <cub/block/block_topk.cuh>
#define TWIN_HAS_BLOCK_TOPK 1
#endif

// PAIRS: the values are loaded from the source as the keys are (what moves is the point, not
// what they hold: a position computed in the Python kernel would time its integer arithmetic,
// and a copy loop over the keys its dynamic indexing where the loop is not unrolled), and the
// sorted values are stored.
template <typename T, int BLOCK, int ITEMS, bool PAIRS>
__device__ __forceinline__ void block_radix_sort(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Sort = cub::BlockRadixSort<T, BLOCK, ITEMS, ::cuda::std::conditional_t<PAIRS, T, cub::NullType>>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Sort::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T keys[ITEMS];
  Load().Load(source + tile, keys);
  if constexpr (PAIRS) {
    T values[ITEMS];
    Load().Load(source + tile, values);
    Sort(scratch).Sort(keys, values);
    Store().Store(destination + tile, values);
  } else {
    Sort(scratch).Sort(keys);
    Store().Store(destination + tile, keys);
  }
}

template <typename T, int BLOCK, int ITEMS>
__device__ __forceinline__ void block_merge_sort(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Sort = cub::BlockMergeSort<T, BLOCK, ITEMS>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Sort::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T keys[ITEMS];
  Load().Load(source + tile, keys);
  Sort(scratch).Sort(keys, ::cuda::std::less<>{});
  Store().Store(destination + tile, keys);
}

template <typename T, int BLOCK, int ITEMS>
__device__ __forceinline__ void warp_merge_sort(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, cub::WARP_LOAD_DIRECT, WARP>;
  using Sort = cub::WarpMergeSort<T, ITEMS, WARP>;
  using Store = cub::WarpStore<T, ITEMS, cub::WARP_STORE_DIRECT, WARP>;
  __shared__ typename Sort::TempStorage scratch[BLOCK / WARP];
  const auto tile = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP * (WARP * ITEMS);
  T keys[ITEMS];
  Load().Load(source + tile, keys);
  Sort(scratch[threadIdx.x / WARP]).Sort(keys, ::cuda::std::less<>{});
  Store().Store(destination + tile, keys);
}

// The rank of each key by its low BITS bits, as BlockRadixSort ranks a digit: the keys'
// twiddled bits through a digit extractor.
template <typename T, int BLOCK, int ITEMS, int BITS>
__device__ __forceinline__ void block_radix_rank(const T* source, int* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Rank = cub::BlockRadixRank<BLOCK, BITS, false>;
  using Bits = typename cub::Traits<T>::UnsignedBits;
  __shared__ typename Rank::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T keys[ITEMS];
  Load().Load(source + tile, keys);
  Bits bits[ITEMS];
  for (int i = 0; i < ITEMS; ++i) bits[i] = cub::Traits<T>::TwiddleIn(reinterpret_cast<const Bits&>(keys[i]));
  int ranks[ITEMS];
  Rank(scratch).RankKeys(bits, ranks, cub::BFEDigitExtractor<T>(0, BITS));
  cub::BlockStore<int, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>().Store(destination + tile, ranks);
}

// The K largest keys of the tile in its first K positions: CUB's block top-k where the CCCL
// has it, else a descending radix sort of the tile.
template <typename T, int BLOCK, int ITEMS, int K>
__device__ __forceinline__ void block_topk(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
#if defined(TWIN_HAS_BLOCK_TOPK)
  using Select = cub::detail::block_topk<T, BLOCK, ITEMS>;
#else
  using Select = cub::BlockRadixSort<T, BLOCK, ITEMS>;
#endif
  __shared__ typename Select::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T keys[ITEMS];
  Load().Load(source + tile, keys);
#if defined(TWIN_HAS_BLOCK_TOPK)
  Select(scratch).template max_keys<true>(keys, K, BLOCK * ITEMS);
#else
  Select(scratch).SortDescending(keys);
#endif
  Store().Store(destination + tile, keys);
}
