namespace coop_adapt {
// cub::WarpExchange whose scatter first checks that every rank addresses the
// logical warp's tile (see CheckedBlockExchange): a bad rank traps.
template <typename T, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS>
struct CheckedWarpExchange : ::cub::WarpExchange<T, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpExchange<T, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS>;
  using Base::Base;

  template <typename OutputT, typename OffsetT>
  __device__ __forceinline__ void ScatterToStriped(const T (&input)[ITEMS_PER_THREAD],
                                                   OutputT (&output)[ITEMS_PER_THREAD],
                                                   OffsetT (&ranks)[ITEMS_PER_THREAD]) {
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const long long rank = static_cast<long long>(ranks[i]);
      if (rank < 0 || rank >= 1LL * LOGICAL_WARP_THREADS * ITEMS_PER_THREAD) __trap();
    }
    Base::ScatterToStriped(input, output, ranks);
  }
};
}  // namespace coop_adapt
