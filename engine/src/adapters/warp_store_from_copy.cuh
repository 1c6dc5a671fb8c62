namespace coop_adapt {
// cub::WarpStore that stores from a copy of the lane's items (see BlockStoreFromCopy), and
// one value per lane given as a scalar.
template <typename T, int ITEMS_PER_THREAD, ::cub::WarpStoreAlgorithm ALGORITHM, int LOGICAL_WARP_THREADS>
struct WarpStoreFromCopy : ::cub::WarpStore<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpStore<T, ITEMS_PER_THREAD, ALGORITHM, LOGICAL_WARP_THREADS>;
  using Base::Base;

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, const T (&items)[ITEMS_PER_THREAD]) {
    T copy[ITEMS_PER_THREAD];
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) copy[i] = items[i];
    Base::Store(warp_itr, copy);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, const T (&items)[ITEMS_PER_THREAD], int valid_items) {
    T copy[ITEMS_PER_THREAD];
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) copy[i] = items[i];
    Base::Store(warp_itr, copy, valid_items);
  }

  // A scalar payload: ITEMS_PER_THREAD is 1.
  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, T item) {
    T items[ITEMS_PER_THREAD] = {item};
    Base::Store(warp_itr, items);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT warp_itr, T item, int valid_items) {
    T items[ITEMS_PER_THREAD] = {item};
    Base::Store(warp_itr, items, valid_items);
  }
};
}  // namespace coop_adapt
