namespace coop_adapt {
// cub::BlockLoad whose guarded load (valid_items, no oob_default) leaves the items past
// the valid prefix as they were, as the seed's load promises: CUB's transposing
// algorithms exchange every slot through shared memory, so a slot no element reached
// would come back holding another thread's item. The other algorithms write only valid
// slots already and take CUB's load unchanged.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, ::cub::BlockLoadAlgorithm ALGORITHM, int BLOCK_DIM_Y,
          int BLOCK_DIM_Z>
struct BlockLoadKeepingInvalid
    : ::cub::BlockLoad<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockLoad<T, BLOCK_DIM_X, ITEMS_PER_THREAD, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Base::Base;
  using Base::Load;

  template <typename InputIteratorT>
  __device__ __forceinline__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    constexpr bool exchanges = ALGORITHM == ::cub::BLOCK_LOAD_TRANSPOSE ||
                               ALGORITHM == ::cub::BLOCK_LOAD_WARP_TRANSPOSE ||
                               ALGORITHM == ::cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED;
    if constexpr (!exchanges) {
      Base::Load(block_itr, items, valid_items);
    } else {
      T loaded[ITEMS_PER_THREAD];
      Base::Load(block_itr, loaded, valid_items);
      const int first = ::cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z) * ITEMS_PER_THREAD;  // blocked
      for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        if (first + i < valid_items) items[i] = loaded[i];
      }
    }
  }
};
}  // namespace coop_adapt
