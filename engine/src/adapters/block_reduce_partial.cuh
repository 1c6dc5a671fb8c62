namespace coop_adapt {
// cub::BlockReduce with the ThreadData overloads taking valid_items that CUB lacks (it has
// them for one item per thread only). The tile is blocked: item i of thread t is element
// t * ITEMS_PER_THREAD + i, so each thread reduces its items inside the valid prefix, and the
// threads that hold any of it reduce together through CUB's num_valid overload. No
// identity is needed, so every operator works, a user's included.
template <typename T, int BLOCK_DIM_X, ::cub::BlockReduceAlgorithm ALGORITHM, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct BlockReducePartial : ::cub::BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Base::Base;
  using Base::Reduce;
  using Base::Sum;

  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op, int valid_items) {
    const int first = ::cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z) * ITEMS_PER_THREAD;
    T partial = inputs[0];  // a thread past the prefix contributes nothing: CUB skips it
    for (int i = 1; i < ITEMS_PER_THREAD; ++i) {
      if (first + i < valid_items) partial = reduction_op(partial, inputs[i]);
    }
    const int threads = (valid_items + ITEMS_PER_THREAD - 1) / ITEMS_PER_THREAD;
    return Base::Reduce(partial, reduction_op, threads);
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ T Sum(T (&inputs)[ITEMS_PER_THREAD], int valid_items) {
    return Reduce(inputs, ::cuda::std::plus<>{}, valid_items);
  }
};
}  // namespace coop_adapt
