namespace coop_adapt {
// cub::BlockExchange whose scatters first check that every rank addresses the tile:
// CUB stores item i to shared memory at ranks[i] unchecked, so a rank past the tile
// (or a negative one where no guard skips it) would overwrite another block
// resource. A bad rank traps, as a bad runtime valid_items does.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct CheckedBlockExchange
    : ::cub::BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, WARP_TIME_SLICING, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, WARP_TIME_SLICING, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Base::Base;
  static constexpr long long kTile = 1LL * BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD;

  template <typename OffsetT>
  static __device__ __forceinline__ void RequireInTile(OffsetT rank) {
    if (static_cast<long long>(rank) < 0 || static_cast<long long>(rank) >= kTile) __trap();
  }

  template <typename OutputT, typename OffsetT>
  __device__ __forceinline__ void ScatterToBlocked(const T (&input)[ITEMS_PER_THREAD],
                                                   OutputT (&output)[ITEMS_PER_THREAD],
                                                   OffsetT (&ranks)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) RequireInTile(ranks[i]);
    Base::ScatterToBlocked(input, output, ranks);
  }

  template <typename OutputT, typename OffsetT>
  __device__ __forceinline__ void ScatterToStriped(const T (&input)[ITEMS_PER_THREAD],
                                                   OutputT (&output)[ITEMS_PER_THREAD],
                                                   OffsetT (&ranks)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) RequireInTile(ranks[i]);
    Base::ScatterToStriped(input, output, ranks);
  }

  // A negative rank is CUB's "skip this item"; only ranks past the tile are bad.
  template <typename OutputT, typename OffsetT>
  __device__ __forceinline__ void ScatterToStripedGuarded(const T (&input)[ITEMS_PER_THREAD],
                                                          OutputT (&output)[ITEMS_PER_THREAD],
                                                          OffsetT (&ranks)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      if (ranks[i] >= 0) RequireInTile(ranks[i]);
    }
    if constexpr (WARP_TIME_SLICING) {
      // CUB's guarded scatter has no time-sliced form and would index the whole tile
      // into a buffer sized for one warp's slice; the time-sliced plain scatter
      // already skips ranks below its slice, so negative ranks are skipped too.
      Base::ScatterToStriped(input, output, ranks);
    } else {
      Base::ScatterToStripedGuarded(input, output, ranks);
    }
  }

  // Only the ranks of valid items are read.
  template <typename OutputT, typename OffsetT, typename ValidFlag>
  __device__ __forceinline__ void ScatterToStripedFlagged(const T (&input)[ITEMS_PER_THREAD],
                                                          OutputT (&output)[ITEMS_PER_THREAD],
                                                          OffsetT (&ranks)[ITEMS_PER_THREAD],
                                                          ValidFlag (&is_valid)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      if (is_valid[i]) RequireInTile(ranks[i]);
    }
    if constexpr (WARP_TIME_SLICING) {
      // As above: an invalid item becomes a skipped (negative) rank of the time-sliced scatter.
      int kept[ITEMS_PER_THREAD];
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) kept[i] = is_valid[i] ? static_cast<int>(ranks[i]) : -1;
      Base::ScatterToStriped(input, output, kept);
    } else {
      Base::ScatterToStripedFlagged(input, output, ranks, is_valid);
    }
  }
};
}  // namespace coop_adapt
