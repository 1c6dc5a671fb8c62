namespace coop_adapt {
// An output the call was not asked for (relative offsets, the total).
struct NoOutput {};

// cub::BlockRunLengthDecode decoding one window of a block's runs, or all of them into memory.
// CUB's constructor scans the lengths in the offset dtype, where a total too large wraps (or, signed,
// overflows), its RunLengthDecode misplaces items after an interior zero-length run and reads past the
// runs for a window past the total, and it counts a thread's decoded indices in the offset dtype, which
// may not hold them past its max. So the lengths are checked and scanned here, saturating in 64 bits;
// CUB is handed the run offsets in an unsigned dtype of at least 32 bits (CubOffsetT), where counting
// past the max wraps instead; and which slots hold a decoded item is decided here, without wrapping: slot
// i of thread t is valid when offset + t x DECODED_ITEMS_PER_THREAD + i is below the total. A negative
// length, a zero followed by a positive length or a total past the offset dtype's max traps, as does a
// negative offset. Slots at or past the total are ItemT{}, their relative offsets the offset dtype's
// max (-1 where it is signed).
template <typename ItemT, int BLOCK_DIM_X, int RUNS_PER_THREAD, int DECODED_ITEMS_PER_THREAD, typename DecodedOffsetT,
          int BLOCK_DIM_Y, int BLOCK_DIM_Z, typename LengthT>
struct BlockRunLengthWindow {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr unsigned long long kTile = static_cast<unsigned long long>(kThreads) * DECODED_ITEMS_PER_THREAD;
  // The largest total: every decoded index below it is a value of the offset dtype.
  static constexpr unsigned long long kMaxTotal =
      static_cast<unsigned long long>(::cuda::std::numeric_limits<DecodedOffsetT>::max());
  static constexpr DecodedOffsetT kNoRelativeOffset = ::cuda::std::is_signed_v<DecodedOffsetT>
                                                          ? static_cast<DecodedOffsetT>(-1)
                                                          : ::cuda::std::numeric_limits<DecodedOffsetT>::max();
  using CubOffsetT =
      ::cuda::std::conditional_t<(sizeof(DecodedOffsetT) > 4), ::cuda::std::uint64_t, ::cuda::std::uint32_t>;

  // A thread's (or a prefix of threads') decoded items, whether their sum passed 2^64 - 1, and
  // whether a zero length was seen.
  struct Prefix {
    unsigned long long items;
    int overflowed;
    int zero_seen;
  };
  struct PrefixSum {
    __device__ __forceinline__ Prefix operator()(const Prefix& a, const Prefix& b) const {
      const unsigned long long sum = a.items + b.items;
      return {sum, a.overflowed | b.overflowed | (sum < a.items ? 1 : 0), a.zero_seen | b.zero_seen};
    }
  };
  using Scan = ::cub::BlockScan<Prefix, BLOCK_DIM_X, ::cub::BLOCK_SCAN_WARP_SCANS, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Impl = ::cub::BlockRunLengthDecode<ItemT, BLOCK_DIM_X, RUNS_PER_THREAD, DECODED_ITEMS_PER_THREAD, CubOffsetT,
                                           BLOCK_DIM_Y, BLOCK_DIM_Z>;
  union TempStorage {
    typename Scan::TempStorage scan;
    typename Impl::TempStorage runs;
  };

  __device__ __forceinline__ explicit BlockRunLengthWindow(TempStorage& storage) : storage_(storage) {}

  template <typename IndexT = long long, typename Relative = NoOutput, typename Total = NoOutput>
  __device__ __forceinline__ void Decode(ItemT (&run_values)[RUNS_PER_THREAD], LengthT (&run_lengths)[RUNS_PER_THREAD],
                                         ItemT (&decoded)[DECODED_ITEMS_PER_THREAD], IndexT offset = 0,
                                         Relative&& relative = Relative{}, Total&& total = Total{}) {
    CubOffsetT run_offsets[RUNS_PER_THREAD];
    const unsigned long long decoded_total = ScanLengths(run_lengths, run_offsets);
    const unsigned long long first = Index(offset);
    CubOffsetT within_run[DECODED_ITEMS_PER_THREAD];
    Impl runs(storage_.runs, run_values, run_offsets);  // a barrier: every thread, whatever its window
    if (first < decoded_total) {                        // CUB's decode of a window past the total is undefined
      runs.RunLengthDecode(decoded, within_run, static_cast<CubOffsetT>(first));
    }
    const unsigned long long own = Rank() * DECODED_ITEMS_PER_THREAD;
#pragma unroll
    for (int i = 0; i < DECODED_ITEMS_PER_THREAD; ++i) {
      const bool valid = first < decoded_total && own + i < decoded_total - first;
      if (!valid) decoded[i] = ItemT{};
      if constexpr (!::cuda::std::is_same_v<::cuda::std::remove_cvref_t<Relative>, NoOutput>) {
        relative[i] = valid ? static_cast<DecodedOffsetT>(within_run[i]) : kNoRelativeOffset;
      }
    }
    if constexpr (!::cuda::std::is_same_v<::cuda::std::remove_cvref_t<Total>, NoOutput>) {
      for (auto& item : total) item = static_cast<DecodedOffsetT>(decoded_total);
    }
  }

  // Every window of the stream, written to destination[offset + index] (and each item's index within
  // its run to relative[offset + index]) for each decoded index below the total, nothing past it;
  // returns the total in every thread. An array without room for offset + total items traps before
  // anything is written. One scan, then CUB's decode of each window: no barrier between windows.
  template <typename Destination, typename IndexT = long long, typename Relative = NoOutput>
  __device__ __forceinline__ DecodedOffsetT DecodeInto(ItemT (&run_values)[RUNS_PER_THREAD],
                                                       LengthT (&run_lengths)[RUNS_PER_THREAD], Destination destination,
                                                       IndexT offset = 0, Relative relative = Relative{}) {
    CubOffsetT run_offsets[RUNS_PER_THREAD];
    const unsigned long long decoded_total = ScanLengths(run_lengths, run_offsets);
    const unsigned long long first = Index(offset);
    RequireRoom(destination.size(), first, decoded_total);
    constexpr bool kRelative = !::cuda::std::is_same_v<Relative, NoOutput>;
    if constexpr (kRelative) RequireRoom(relative.size(), first, decoded_total);
    const unsigned long long own = Rank() * DECODED_ITEMS_PER_THREAD;
    Impl runs(storage_.runs, run_values, run_offsets);
    // The total fits the destination, so no window start wraps.
    for (unsigned long long window = 0; window < decoded_total; window += kTile) {
      ItemT decoded[DECODED_ITEMS_PER_THREAD];
      CubOffsetT within_run[DECODED_ITEMS_PER_THREAD];
      runs.RunLengthDecode(decoded, within_run, static_cast<CubOffsetT>(window));
#pragma unroll
      for (int i = 0; i < DECODED_ITEMS_PER_THREAD; ++i) {
        const unsigned long long index = window + own + i;
        if (index >= decoded_total) continue;
        const long long position = static_cast<long long>(first + index);
        destination[position] = decoded[i];
        if constexpr (kRelative) relative[position] = static_cast<DecodedOffsetT>(within_run[i]);
      }
    }
    return static_cast<DecodedOffsetT>(decoded_total);
  }

 private:
  static __device__ __forceinline__ unsigned long long Rank() {
    return threadIdx.x + BLOCK_DIM_X * (threadIdx.y + BLOCK_DIM_Y * threadIdx.z);
  }

  // An index of any integer dtype, whole; a negative one traps.
  template <typename IndexT>
  static __device__ __forceinline__ unsigned long long Index(IndexT index) {
    static_assert(::cuda::std::is_integral_v<IndexT>, "an index is an integer");
    if constexpr (::cuda::std::is_signed_v<IndexT>) {
      if (index < 0) __trap();
    }
    return static_cast<unsigned long long>(index);
  }

  // An array of `size` elements must hold `total` from `first` on.
  static __device__ __forceinline__ void RequireRoom(long long size, unsigned long long first,
                                                     unsigned long long total) {
    const unsigned long long room = size < 0 ? 0ULL : static_cast<unsigned long long>(size);
    if (first > room || total > room - first) __trap();
  }

  // The block's total, checked, and this thread's run offsets (exclusive prefix sums of the lengths).
  __device__ __forceinline__ unsigned long long ScanLengths(LengthT (&run_lengths)[RUNS_PER_THREAD],
                                                            CubOffsetT (&run_offsets)[RUNS_PER_THREAD]) {
    Prefix own{0, 0, 0};
    bool positive = false;
#pragma unroll
    for (int i = 0; i < RUNS_PER_THREAD; ++i) {
      if constexpr (::cuda::std::is_signed_v<LengthT>) {
        if (run_lengths[i] < 0) __trap();
      }
      const unsigned long long length = static_cast<unsigned long long>(run_lengths[i]);
      if (length == 0) own.zero_seen = 1;
      if (length != 0 && own.zero_seen) __trap();  // an interior zero-length run
      positive = positive || length != 0;
      own = PrefixSum{}(own, Prefix{length, 0, 0});
    }
    Prefix before, block;
    Scan(storage_.scan).ExclusiveScan(own, before, Prefix{0, 0, 0}, PrefixSum{}, block);
    if (positive && before.zero_seen) __trap();  // a zero-length run before this thread's positive one
    if (block.overflowed || block.items > kMaxTotal) __trap();
    unsigned long long running = before.items;
#pragma unroll
    for (int i = 0; i < RUNS_PER_THREAD; ++i) {
      run_offsets[i] = static_cast<CubOffsetT>(running);
      running += static_cast<unsigned long long>(run_lengths[i]);
    }
    __syncthreads();  // the scan's storage is the runs' next
    return block.items;
  }

  TempStorage& storage_;
};
}  // namespace coop_adapt
