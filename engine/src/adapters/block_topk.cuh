#if __has_include(<cub/block/block_topk.cuh>)
#include <cub/block/block_topk.cuh>
#define COOP_ADAPT_CUB_HAS_BLOCK_TOPK 1
#endif
namespace coop_adapt {
// The k smallest (MAX false) or largest keys of a one-dimensional block's tile, and their
// values, in the tile's first min(k, valid_items) blocked positions, in no particular order;
// the other positions are unspecified. With CUB's block top-k (radix selection: CCCL 3.5 has
// it, 3.0 has not) where the CCCL in use has it; otherwise composed from cub::BlockRadixSort: the keys
// past valid_items take the value that sorts last, and a stable sort puts the selection
// first (a padding key's bits are all ones, or all zeros, within any bit range, so it sorts
// last there too). Keys order as a radix sort orders them on the bits [begin_bit, end_bit)
// (-0.0 equal to +0.0, keeping its bits).
// Nothing is called for an empty selection (k or valid_items 0), which CUB does not allow.
template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT, bool MAX>
struct BlockTopK {
#if defined(COOP_ADAPT_CUB_HAS_BLOCK_TOPK)
  using Impl = ::cub::detail::block_topk<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, ValueT>;
#else
  using Impl = ::cub::BlockRadixSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD, ValueT>;
#endif
  using TempStorage = typename Impl::TempStorage;
  static constexpr int kTile = BLOCK_DIM_X * ITEMS_PER_THREAD;
  static constexpr int kKeyBits = static_cast<int>(sizeof(KeyT) * 8);

  __device__ __forceinline__ explicit BlockTopK(TempStorage& storage) : storage_(storage) {}

  __device__ __forceinline__ void Select(KeyT (&keys)[ITEMS_PER_THREAD], int k) {
    select<true>(keys, nullptr, k, kTile, 0, kKeyBits);
  }
  __device__ __forceinline__ void Select(KeyT (&keys)[ITEMS_PER_THREAD], int k, int valid_items, int begin_bit = 0,
                                         int end_bit = kKeyBits) {
    select_valid(keys, nullptr, k, valid_items, begin_bit, end_bit);
  }
  __device__ __forceinline__ void Select(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int k) {
    select<true>(keys, &values, k, kTile, 0, kKeyBits);
  }
  __device__ __forceinline__ void Select(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int k,
                                         int valid_items, int begin_bit = 0, int end_bit = kKeyBits) {
    select_valid(keys, &values, k, valid_items, begin_bit, end_bit);
  }

 private:
  TempStorage& storage_;
  using Values = ValueT[ITEMS_PER_THREAD];
  static constexpr bool kKeysOnly = ::cuda::std::is_same_v<ValueT, ::cub::NullType>;

  // valid_items -1 (what the call passes when it omits it but gives a bit range): the whole tile.
  __device__ __forceinline__ void select_valid(KeyT (&keys)[ITEMS_PER_THREAD], Values* values, int k, int valid_items,
                                               int begin_bit, int end_bit) {
    if (valid_items < 0)
      select<true>(keys, values, k, kTile, begin_bit, end_bit);
    else
      select<false>(keys, values, k, valid_items, begin_bit, end_bit);
  }

  template <bool FULL_TILE>
  __device__ __forceinline__ void select(KeyT (&keys)[ITEMS_PER_THREAD], Values* values, int k, int valid_items,
                                         int begin_bit, int end_bit) {
    if (k <= 0 || valid_items <= 0 || k >= valid_items) return;  // the first valid_items hold the selection
#if defined(COOP_ADAPT_CUB_HAS_BLOCK_TOPK)
    Impl topk(storage_);
    if constexpr (kKeysOnly) {
      if constexpr (MAX)
        topk.template max_keys<FULL_TILE>(keys, k, valid_items, begin_bit, end_bit);
      else
        topk.template min_keys<FULL_TILE>(keys, k, valid_items, begin_bit, end_bit);
    } else {
      if constexpr (MAX)
        topk.template max_pairs<FULL_TILE>(keys, *values, k, valid_items, begin_bit, end_bit);
      else
        topk.template min_pairs<FULL_TILE>(keys, *values, k, valid_items, begin_bit, end_bit);
    }
#else
    if constexpr (!FULL_TILE) {
      using Traits = ::cub::Traits<KeyT>;
      using UnsignedBits = typename Traits::UnsignedBits;
      const UnsignedBits last = Traits::TwiddleOut(MAX ? UnsignedBits(0) : UnsignedBits(~UnsignedBits(0)));
#pragma unroll
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        if (static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD + i >= valid_items) {
          keys[i] = reinterpret_cast<const KeyT&>(last);
        }
      }
    }
    Impl sort(storage_);
    if constexpr (kKeysOnly) {
      if constexpr (MAX)
        sort.SortDescending(keys, begin_bit, end_bit);
      else
        sort.Sort(keys, begin_bit, end_bit);
    } else {
      if constexpr (MAX)
        sort.SortDescending(keys, *values, begin_bit, end_bit);
      else
        sort.Sort(keys, *values, begin_bit, end_bit);
    }
#endif
  }
};
}  // namespace coop_adapt
