namespace coop_adapt {
// cub::BlockStore that stores from a copy of the thread's items, so the caller's stay as
// they were (the seed's store leaves its input unchanged; CUB's transposing algorithms
// rearrange the array they are given). The copy lives in registers and is free where the
// items are dead after the store. Also stores one value per thread given as a scalar.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, ::cub::BlockStoreAlgorithm ALGORITHM, int BLOCK_DIM_Y,
          int BLOCK_DIM_Z>
struct BlockStoreFromCopy : ::cub::BlockStore<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockStore<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Base::Base;

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, const T (&items)[ITEMS_PER_THREAD]) {
    T copy[ITEMS_PER_THREAD];
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) copy[i] = items[i];
    Base::Store(block_itr, copy);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, const T (&items)[ITEMS_PER_THREAD],
                                        int valid_items) {
    T copy[ITEMS_PER_THREAD];
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) copy[i] = items[i];
    Base::Store(block_itr, copy, valid_items);
  }

  // A scalar payload: ITEMS_PER_THREAD is 1.
  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, T item) {
    T items[ITEMS_PER_THREAD] = {item};
    Base::Store(block_itr, items);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, T item, int valid_items) {
    T items[ITEMS_PER_THREAD] = {item};
    Base::Store(block_itr, items, valid_items);
  }
};
}  // namespace coop_adapt
