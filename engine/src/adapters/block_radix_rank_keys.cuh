namespace coop_adapt {
// The rank of each key of the block's tile by one radix digit, bits [begin_bit, begin_bit +
// RADIX_BITS) of its bit-twiddled form, which CUB has no overload of for keys as they are:
// cub::BlockRadixRank (or cub::BlockRadixRankMatch) ranks unsigned bits through a digit
// extractor. The keys are twiddled as cub::BlockRadixSort twiddles them (signed integers with
// the sign bit flipped, floats in their total order with -0.0 equal to +0.0), so a rank is the
// key's position in a stable sort by that digit, and the digit extractor is the one
// BlockRadixSort builds. ALGORITHM picks CUB's class: RADIX_RANK_BASIC, RADIX_RANK_MEMOIZE or
// RADIX_RANK_MATCH; the match ranks keys warp-striped (CUB's requirement), so the keys go to
// that arrangement through cub::BlockExchange and the ranks come back blocked: every
// algorithm gives the same ranks.
template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int RADIX_BITS, bool DESCENDING,
          ::cub::RadixRankAlgorithm ALGORITHM, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct BlockRadixRankKeys {
  using Traits = ::cub::Traits<KeyT>;
  using UnsignedBits = typename Traits::UnsignedBits;
  using Rank = ::cuda::std::conditional_t<
      ALGORITHM == ::cub::RADIX_RANK_MATCH,
      ::cub::BlockRadixRankMatch<BLOCK_DIM_X, RADIX_BITS, DESCENDING, ::cub::BLOCK_SCAN_WARP_SCANS, BLOCK_DIM_Y,
                                 BLOCK_DIM_Z>,
      ::cub::BlockRadixRank<BLOCK_DIM_X, RADIX_BITS, DESCENDING, ALGORITHM == ::cub::RADIX_RANK_MEMOIZE,
                            ::cub::BLOCK_SCAN_WARP_SCANS, ::cudaSharedMemBankSizeFourByte, BLOCK_DIM_Y, BLOCK_DIM_Z>>;
  static constexpr bool kWarpStriped = ALGORITHM == ::cub::RADIX_RANK_MATCH;
  using BitsExchange =
      ::cub::BlockExchange<UnsignedBits, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using RanksExchange = ::cub::BlockExchange<int, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  struct Exchanges {
    typename BitsExchange::TempStorage bits;
    typename RanksExchange::TempStorage ranks;
  };
  union TempStorage {
    typename Rank::TempStorage rank;
    ::cuda::std::conditional_t<kWarpStriped, Exchanges, char> exchange;
  };
  static constexpr int DIGITS_PER_THREAD = Rank::BINS_TRACKED_PER_THREAD;

  __device__ __forceinline__ explicit BlockRadixRankKeys(TempStorage& storage) : storage_(storage) {}

  __device__ __forceinline__ void RankKeys(KeyT (&keys)[ITEMS_PER_THREAD], int (&ranks)[ITEMS_PER_THREAD],
                                           int begin_bit = 0) {
    UnsignedBits bits[ITEMS_PER_THREAD];
    arranged(keys, bits);
    Rank(storage_.rank).RankKeys(bits, ranks, extractor(begin_bit));
    blocked(ranks);
  }

  __device__ __forceinline__ void RankKeys(KeyT (&keys)[ITEMS_PER_THREAD], int (&ranks)[ITEMS_PER_THREAD],
                                           int begin_bit, int (&exclusive_digit_prefix)[DIGITS_PER_THREAD]) {
    UnsignedBits bits[ITEMS_PER_THREAD];
    arranged(keys, bits);
    Rank(storage_.rank).RankKeys(bits, ranks, extractor(begin_bit), exclusive_digit_prefix);
    blocked(ranks);
  }

 private:
  TempStorage& storage_;

  // The keys' twiddled bits, in the arrangement the rank class reads.
  __device__ __forceinline__ void arranged(KeyT (&keys)[ITEMS_PER_THREAD], UnsignedBits (&bits)[ITEMS_PER_THREAD]) {
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      bits[i] = Traits::TwiddleIn(reinterpret_cast<const UnsignedBits&>(keys[i]));
    }
    if constexpr (kWarpStriped) {
      BitsExchange(storage_.exchange.bits).BlockedToWarpStriped(bits);
      __syncthreads();  // the rank class reuses the exchange's scratch
    }
  }

  // The ranks of the keys as the caller holds them (blocked).
  __device__ __forceinline__ void blocked(int (&ranks)[ITEMS_PER_THREAD]) {
    if constexpr (kWarpStriped) {
      __syncthreads();  // the exchange reuses the rank class's scratch
      RanksExchange(storage_.exchange.ranks).WarpStripedToBlocked(ranks);
    }
  }

  static __device__ __forceinline__ ::cub::BFEDigitExtractor<KeyT> extractor(int begin_bit) {
    return ::cub::BFEDigitExtractor<KeyT>(static_cast<::cuda::std::uint32_t>(begin_bit), RADIX_BITS);
  }
};
}  // namespace coop_adapt
