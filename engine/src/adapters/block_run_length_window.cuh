namespace coop_adapt {
// An output the call was not asked for (relative offsets, the total).
struct NoOutput {};

// cub::BlockRunLengthDecode decoding one window of a block's runs. CUB's constructor scans the
// lengths in the offset dtype, where a total too large wraps, and its RunLengthDecode misplaces
// items after an interior zero-length run and reads past the runs for a window past the total.
// So the lengths are checked and scanned here, saturating in 64 bits, and CUB is handed the run
// offsets: a negative length, a zero followed by a positive length, or a total that leaves less
// than one tile of decoded indices below the offset dtype's max traps, as does a negative
// offset. Slots at or past the total are T{} (relative offsets: the offset dtype's max).
template <typename ItemT, int BLOCK_DIM_X, int RUNS_PER_THREAD, int DECODED_ITEMS_PER_THREAD, typename DecodedOffsetT,
          int BLOCK_DIM_Y, int BLOCK_DIM_Z, typename LengthT>
struct BlockRunLengthWindow {
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr unsigned long long kSaturated = ~0ULL;
  // The largest total: every decoded index of a window starting below it fits the offset dtype.
  static constexpr unsigned long long kMaxTotal =
      static_cast<unsigned long long>(::cuda::std::numeric_limits<DecodedOffsetT>::max()) -
      static_cast<unsigned long long>(kThreads) * DECODED_ITEMS_PER_THREAD;

  // A thread's (or a prefix of threads') decoded items, saturated, and whether a zero length was seen.
  struct Prefix {
    unsigned long long items;
    int zero_seen;
  };
  struct PrefixSum {
    __device__ __forceinline__ Prefix operator()(const Prefix& a, const Prefix& b) const {
      const unsigned long long sum = a.items + b.items;
      return {sum < a.items ? kSaturated : sum, a.zero_seen | b.zero_seen};
    }
  };
  using Scan = ::cub::BlockScan<Prefix, BLOCK_DIM_X, ::cub::BLOCK_SCAN_WARP_SCANS, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using Impl = ::cub::BlockRunLengthDecode<ItemT, BLOCK_DIM_X, RUNS_PER_THREAD, DECODED_ITEMS_PER_THREAD,
                                           DecodedOffsetT, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  union TempStorage {
    typename Scan::TempStorage scan;
    typename Impl::TempStorage runs;
  };

  __device__ __forceinline__ explicit BlockRunLengthWindow(TempStorage& storage) : storage_(storage) {}

  template <typename Relative = NoOutput, typename Total = NoOutput>
  __device__ __forceinline__ void Decode(ItemT (&run_values)[RUNS_PER_THREAD], LengthT (&run_lengths)[RUNS_PER_THREAD],
                                         ItemT (&decoded)[DECODED_ITEMS_PER_THREAD], long long offset = 0,
                                         Relative&& relative = Relative{}, Total&& total = Total{}) {
    DecodedOffsetT run_offsets[RUNS_PER_THREAD];
    const unsigned long long decoded_total = ScanLengths(run_lengths, run_offsets);
    if (offset < 0) __trap();
    const unsigned long long rank = Rank();
    const unsigned long long first = static_cast<unsigned long long>(offset);
    DecodedOffsetT within_run[DECODED_ITEMS_PER_THREAD];
    Impl runs(storage_.runs, run_values, run_offsets);  // a barrier: every thread, whatever its window
    if (first < decoded_total) {                        // CUB's decode of a window past the total is undefined
      runs.RunLengthDecode(decoded, within_run, static_cast<DecodedOffsetT>(first));
    }
#pragma unroll
    for (int i = 0; i < DECODED_ITEMS_PER_THREAD; ++i) {
      // first < decoded_total <= kMaxTotal here keeps this below the offset dtype's max.
      const bool valid = first < decoded_total && first + rank * DECODED_ITEMS_PER_THREAD + i < decoded_total;
      if (!valid) {
        decoded[i] = ItemT{};
        within_run[i] = ::cuda::std::numeric_limits<DecodedOffsetT>::max();
      }
    }
    if constexpr (!::cuda::std::is_same_v<::cuda::std::remove_cvref_t<Relative>, NoOutput>) {
#pragma unroll
      for (int i = 0; i < DECODED_ITEMS_PER_THREAD; ++i) relative[i] = within_run[i];
    }
    if constexpr (!::cuda::std::is_same_v<::cuda::std::remove_cvref_t<Total>, NoOutput>) {
      for (auto& item : total) item = static_cast<DecodedOffsetT>(decoded_total);
    }
  }

  // Every window of the stream, written to destination[offset + index] for each decoded index
  // below the total (nothing past it); returns the total in every thread. One scan, then CUB's
  // decode of each window: no barrier between windows.
  template <typename Destination>
  __device__ __forceinline__ DecodedOffsetT DecodeInto(ItemT (&run_values)[RUNS_PER_THREAD],
                                                       LengthT (&run_lengths)[RUNS_PER_THREAD], Destination destination,
                                                       long long offset = 0) {
    DecodedOffsetT run_offsets[RUNS_PER_THREAD];
    const unsigned long long decoded_total = ScanLengths(run_lengths, run_offsets);
    if (offset < 0) __trap();
    const unsigned long long own = Rank() * DECODED_ITEMS_PER_THREAD;
    Impl runs(storage_.runs, run_values, run_offsets);
    for (unsigned long long window = 0; window < decoded_total; window += kThreads * DECODED_ITEMS_PER_THREAD) {
      ItemT decoded[DECODED_ITEMS_PER_THREAD];
      DecodedOffsetT within_run[DECODED_ITEMS_PER_THREAD];
      runs.RunLengthDecode(decoded, within_run, static_cast<DecodedOffsetT>(window));
#pragma unroll
      for (int i = 0; i < DECODED_ITEMS_PER_THREAD; ++i) {
        const unsigned long long index = window + own + i;
        if (index < decoded_total) destination[static_cast<long long>(offset + index)] = decoded[i];
      }
    }
    return static_cast<DecodedOffsetT>(decoded_total);
  }

 private:
  static __device__ __forceinline__ unsigned long long Rank() {
    return threadIdx.x + BLOCK_DIM_X * (threadIdx.y + BLOCK_DIM_Y * threadIdx.z);
  }

  // The block's total, checked, and this thread's run offsets (exclusive prefix sums of the lengths).
  __device__ __forceinline__ unsigned long long ScanLengths(LengthT (&run_lengths)[RUNS_PER_THREAD],
                                                            DecodedOffsetT (&run_offsets)[RUNS_PER_THREAD]) {
    Prefix own{0, 0};
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
      own = PrefixSum{}(own, Prefix{length, 0});
    }
    Prefix before, block;
    Scan(storage_.scan).ExclusiveScan(own, before, Prefix{0, 0}, PrefixSum{}, block);
    if (positive && before.zero_seen) __trap();  // a zero-length run before this thread's positive one
    if (block.items > kMaxTotal) __trap();
    unsigned long long running = before.items;
#pragma unroll
    for (int i = 0; i < RUNS_PER_THREAD; ++i) {
      run_offsets[i] = static_cast<DecodedOffsetT>(running);
      running += static_cast<unsigned long long>(run_lengths[i]);
    }
    __syncthreads();  // the scan's storage is the runs' next
    return block.items;
  }

  TempStorage& storage_;
};
}  // namespace coop_adapt
