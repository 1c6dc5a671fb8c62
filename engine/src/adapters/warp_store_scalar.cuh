namespace coop_adapt {
// cub::WarpStore storing one value per lane given as a scalar (see BlockStoreScalar).
template <typename T, int ITEMS_PER_THREAD, ::cub::WarpStoreAlgorithm ALGORITHM, int LOGICAL_WARP_THREADS>
struct WarpStoreScalar : ::cub::WarpStore<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpStore<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS>;
  using Base::Base;
  using Base::Store;

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, T item) {
    T items[1] = {item};
    Base::Store(warp_itr, items);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, T item, int valid_items) {
    T items[1] = {item};
    Base::Store(warp_itr, items, valid_items);
  }
};
}  // namespace coop_adapt
