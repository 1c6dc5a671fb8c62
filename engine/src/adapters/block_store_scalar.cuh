namespace coop_adapt {
// cub::BlockStore storing one value per thread given as a scalar (the seed's scalar
// store): CUB's own overloads with a one-item array, ITEMS_PER_THREAD being 1.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, ::cub::BlockStoreAlgorithm ALGORITHM, int BLOCK_DIM_Y,
          int BLOCK_DIM_Z>
struct BlockStoreScalar : ::cub::BlockStore<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockStore<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Base::Base;
  using Base::Store;

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, T item) {
    T items[1] = {item};
    Base::Store(block_itr, items);
  }

  template <typename OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, T item, int valid_items) {
    T items[1] = {item};
    Base::Store(block_itr, items, valid_items);
  }
};
}  // namespace coop_adapt
