namespace coop_adapt {
// cub::WarpReduce with the ThreadData overloads of cub::BlockReduce.
template <typename T, int LOGICAL_WARP_THREADS>
struct WarpReduceItems : ::cub::WarpReduce<T, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpReduce<T, LOGICAL_WARP_THREADS>;
  using Base::Base;
  using Base::Reduce;
  using Base::Sum;

  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    T partial = ::cub::ThreadReduce(inputs, reduction_op);
    return Base::Reduce(partial, reduction_op);
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    T partial = ::cub::ThreadReduce(inputs, ::cuda::std::plus<>{});
    return Base::Sum(partial);
  }
};
}  // namespace coop_adapt
