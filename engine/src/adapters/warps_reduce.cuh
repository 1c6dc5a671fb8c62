namespace coop_adapt {
// A reduction over a group of consecutive physical warps of the block (GROUP_THREADS / 32
// of them; the seed's this_block().group_by(n)), which CUB has no class for, composed
// from cub::WarpReduce: each warp reduces by shuffles, its first lane leaves the warp's
// partial in the group's scratch, and after the group's barrier every member combines
// the group's partials, so the result is in every member. The barrier is a named one
// (1 + the group's index; 0 is __syncthreads') counting the group's threads only, so
// sibling groups may take other paths; a second one keeps the partials until every
// member has read them, which leaves the scratch free for the group's next call.
// Threads past the last whole group (a partition that is not exhaustive) are members of
// none: they get T().
template <typename T, int GROUP_THREADS, int BLOCK_DIM_X, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct WarpsReduce {
  static constexpr int kWarps = GROUP_THREADS / 32;
  static constexpr int kGroups = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z / GROUP_THREADS;
  static_assert(GROUP_THREADS % 32 == 0 && kGroups >= 1, "a group of whole warps inside the block");
  static_assert(kWarps == 1 || kGroups <= 15, "one named barrier per group: at most 15 groups");
  using WarpReduce = ::cub::WarpReduce<T>;
  // The warps' partials first, aligned as one vector where they make one of 2 to 16 bytes:
  // every member reads them with one shared load (two int32: one LDS.64), as it reads an array
  // of them in CUDA C++. Behind CUB's warp scratch they sat 4 bytes into a 12-byte slot, one
  // load each.
  static constexpr int kPartialBytes = int(sizeof(T)) * kWarps;
  static constexpr bool kOneVector = kPartialBytes <= 16 && (kPartialBytes & (kPartialBytes - 1)) == 0;

  // A warp of 32 lanes reduces by shuffles (CUB's WarpReduceShfl), whose scratch is empty:
  // then the group's scratch is its partials alone, the groups' scratch one array of the
  // block's warps, and a warp's slot its index in the block, as in CUDA C++ (a 16-byte
  // stride per group of two int32 warps made ptxas branch around the partial's store).
  static constexpr bool kWarpScratch = !::cuda::std::is_empty_v<typename WarpReduce::InternalWarpReduce::TempStorage>;
  struct Partials {
    alignas(kOneVector ? kPartialBytes : int(alignof(T))) T partial[kWarps];
  };
  struct WithWarpScratch : Partials {
    typename WarpReduce::TempStorage warp[kWarps];
  };
  using TempStorage = ::cuda::std::conditional_t<kWarpScratch, WithWarpScratch, Partials>;

  __device__ __forceinline__ explicit WarpsReduce(TempStorage& storage) : storage_(storage) {}

  template <typename ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op) {
    if (!member()) return T();
    return combine(WarpReduce(warp_scratch()).Reduce(input, reduction_op), reduction_op);
  }

  template <int ITEMS_PER_THREAD, typename ReductionOp>
  __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    return Reduce(::cub::ThreadReduce(inputs, reduction_op), reduction_op);
  }

  __device__ __forceinline__ T Sum(T input) {
    if (!member()) return T();
    return combine(WarpReduce(warp_scratch()).Sum(input), ::cuda::std::plus<>{});
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    return Sum(::cub::ThreadReduce(inputs, ::cuda::std::plus<>{}));
  }

 private:
  TempStorage& storage_;

  // The warp's own scratch; without one, what WarpReduce's constructor takes and the
  // shuffle reduction never touches.
  __device__ __forceinline__ typename WarpReduce::TempStorage& warp_scratch() {
    if constexpr (kWarpScratch) {
      return storage_.warp[warp()];
    } else {
      return *reinterpret_cast<typename WarpReduce::TempStorage*>(&storage_);
    }
  }

  // Unsigned, as CUDA C++ indexes threads: a signed rank costs a sign correction per division.
  static __device__ __forceinline__ unsigned rank() {
    return static_cast<unsigned>(::cub::RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z));
  }
  // Constant where the groups cover the block: a branch on the thread's rank would make the
  // compiler assume the warp diverges and wrap every shuffle in a collective fallback.
  static __device__ __forceinline__ bool member() {
    if constexpr (kGroups * GROUP_THREADS == BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z) return true;
    return rank() / GROUP_THREADS < unsigned(kGroups);
  }
  static __device__ __forceinline__ unsigned warp() { return rank() % GROUP_THREADS / 32u; }

  static __device__ __forceinline__ void sync_group() {
    asm volatile("bar.sync %0, %1;" ::"r"(1u + rank() / GROUP_THREADS), "n"(GROUP_THREADS) : "memory");
  }

  // Where the warp leaves its partial. Without warp scratch the groups' partials are one
  // array of the block's warps (the emitter passes this group's element of an array of
  // TempStorage): the slot is the warp's index in the block, the address CUDA C++ computes.
  __device__ __forceinline__ T* partial_slot() {
    if constexpr (kWarpScratch) {
      return &storage_.partial[warp()];
    } else {
      static_assert(sizeof(Partials) == sizeof(T) * kWarps, "the groups' partials are one array");
      return reinterpret_cast<T*>(&storage_ - rank() / GROUP_THREADS) + rank() / 32u;
    }
  }

  // The group's total in every member, from each warp's total in its first lane.
  template <typename ReductionOp>
  __device__ __forceinline__ T combine(T warp_total, ReductionOp reduction_op) {
    if constexpr (kWarps == 1) {
      return ::cub::ShuffleIndex<32>(warp_total, 0, 0xffffffffu);
    } else {
      if (rank() % 32u == 0u) *partial_slot() = warp_total;
      sync_group();
      T total = storage_.partial[0];
#pragma unroll
      for (int i = 1; i < kWarps; ++i) total = reduction_op(total, storage_.partial[i]);
      sync_group();
      return total;
    }
  }
};
}  // namespace coop_adapt
