namespace coop_adapt {
// cub::WarpLoad whose guarded transposing load leaves the items past the valid prefix as
// they were (see BlockLoadKeepingInvalid).
template <typename T, int ITEMS_PER_THREAD, ::cub::WarpLoadAlgorithm ALGORITHM, int LOGICAL_WARP_THREADS>
struct WarpLoadKeepingInvalid : ::cub::WarpLoad<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpLoad<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS>;
  using Base::Base;
  using Base::Load;

  template <typename InputIteratorT>
  __device__ __forceinline__ void Load(InputIteratorT warp_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    if constexpr (ALGORITHM != ::cub::WARP_LOAD_TRANSPOSE) {
      Base::Load(warp_itr, items, valid_items);
    } else {
      T loaded[ITEMS_PER_THREAD];
      Base::Load(warp_itr, loaded, valid_items);
      const int lane = static_cast<int>(::cuda::ptx::get_sreg_laneid() % LOGICAL_WARP_THREADS);  // as WarpLoad's
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        if (lane * ITEMS_PER_THREAD + i < valid_items) items[i] = loaded[i];
      }
    }
  }
};
}  // namespace coop_adapt
