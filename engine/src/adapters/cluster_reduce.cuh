namespace coop_adapt {
// A reduction over a thread block cluster (the seed's this_cluster(), sm_90+), which CUB
// has no class for, composed from cub::BlockReduce: each block reduces its threads, its
// first thread leaves the block's total in the block's scratch, and after the cluster's
// barrier every member reads the CLUSTER_BLOCKS totals through distributed shared memory
// (mapa: the same scratch in each block of the cluster) and combines them in block rank
// order, so the result, in every member, is right for operators that are not commutative.
// A second cluster barrier keeps the totals until every block has read them: a block may
// not reuse its scratch, or exit, while another block reads it.
// ALGORITHM is the blocks' (the call's `algorithm`).
template <typename T, int BLOCK_DIM_X, int CLUSTER_BLOCKS, ::cub::BlockReduceAlgorithm ALGORITHM, int BLOCK_DIM_Y,
          int BLOCK_DIM_Z>
struct ClusterReduce {
  static_assert(CLUSTER_BLOCKS >= 1, "a cluster of at least one block");
  using BlockReduce = ::cub::BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;

  struct TempStorage {
    typename BlockReduce::TempStorage block;
    T total;  // this block's, read by every block of the cluster
  };

  __device__ __forceinline__ explicit ClusterReduce(TempStorage& storage) : storage_(storage) {}

  template <typename ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op) {
    return combine(BlockReduce(storage_.block).Reduce(input, reduction_op), reduction_op);
  }

  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    return combine(BlockReduce(storage_.block).Reduce(inputs, reduction_op), reduction_op);
  }

  __device__ __forceinline__ T Sum(T input) {
    return combine(BlockReduce(storage_.block).Sum(input), ::cuda::std::plus<>{});
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    return combine(BlockReduce(storage_.block).Sum(inputs), ::cuda::std::plus<>{});
  }

 private:
  TempStorage& storage_;

  // Every thread of every block of the cluster arrives, with release and acquire semantics
  // for shared memory across the cluster; a cluster of one block is that block.
  static __device__ __forceinline__ void sync_members() {
    if constexpr (CLUSTER_BLOCKS == 1) {
      __syncthreads();
    } else {
#if __CUDA_ARCH__ >= 900
      __cluster_barrier_arrive();  // CUDA's own (release, then acquire), as cooperative groups' cluster.sync()
      __cluster_barrier_wait();
#else
      __trap();  // clusters need sm_90; the front end refuses a cluster of several blocks before it
#endif
    }
  }

  // `local`, an object in this block's shared memory, as block `rank` of the cluster holds it
  // (mapa: distributed shared memory).
  static __device__ __forceinline__ const T* in_block(const T* local, unsigned rank) {
    if constexpr (CLUSTER_BLOCKS == 1) return local;
#if __CUDA_ARCH__ >= 900
    return static_cast<const T*>(__cluster_map_shared_rank(local, rank));
#else
    return local;
#endif
  }

  // The cluster's total in every member, from each block's total in its first thread.
  template <typename ReductionOp>
  __device__ __forceinline__ T combine(T block_total, ReductionOp reduction_op) {
    if (::cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z) == 0) storage_.total = block_total;
    sync_members();
    T total = *in_block(&storage_.total, 0);
#pragma unroll
    for (unsigned rank = 1; rank < CLUSTER_BLOCKS; ++rank)
      total = reduction_op(total, *in_block(&storage_.total, rank));
    sync_members();
    return total;
  }
};
}  // namespace coop_adapt
