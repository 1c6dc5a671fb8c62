namespace coop_adapt {
// cub::BlockHistogram counting a block's samples into fresh striped counters: slot i of the
// thread of linear rank t holds bin t + i x threads, and a slot past the last bin holds 0. The
// counters are zeroed on every call (CUB's Histogram: InitHistogram, a barrier, Composite).
//
// CUB indexes its counters with the samples unchecked. Here a sample is read as its unsigned
// bits (a negative one is then very large), and where a sample can be BINS or more, those go
// to one overflow bin past the last that the read-out skips: they are not counted, and nothing
// is written outside the counters. The counters live in the scratch beside CUB's TempStorage,
// as the unsigned integers of their width that atomicAdd takes.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS, ::cub::BlockHistogramAlgorithm ALGORITHM,
          int BLOCK_DIM_Y, int BLOCK_DIM_Z, typename CounterT, int BINS_PER_THREAD>
struct BlockHistogramCounts {
  using Sample = ::cuda::std::make_unsigned_t<T>;
  // Whether a sample can be BINS or more: then BINS is the overflow bin (and fits a Sample).
  static constexpr bool kOverflows = static_cast<unsigned long long>(BINS) <=
                                     static_cast<unsigned long long>(::cuda::std::numeric_limits<Sample>::max());
  static constexpr int kCounters = BINS + (kOverflows ? 1 : 0);
  static constexpr int kThreads = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  using Counter = ::cuda::std::conditional_t<sizeof(CounterT) == 8, unsigned long long, unsigned int>;
  using Impl =
      ::cub::BlockHistogram<Sample, BLOCK_DIM_X, ITEMS_PER_THREAD, kCounters, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  struct TempStorage {
    typename Impl::TempStorage cub;
    Counter counters[kCounters];
  };

  __device__ __forceinline__ explicit BlockHistogramCounts(TempStorage& storage) : storage_(storage) {}

  __device__ __forceinline__ void Histogram(T (&samples)[ITEMS_PER_THREAD], CounterT (&counts)[BINS_PER_THREAD]) {
    Sample bins[ITEMS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const Sample sample = static_cast<Sample>(samples[i]);
      bins[i] = kOverflows && sample >= static_cast<Sample>(BINS) ? static_cast<Sample>(BINS) : sample;
    }
    Impl(storage_.cub).Histogram(bins, storage_.counters);
    __syncthreads();  // every thread's counts are in before any is read
    const int rank = static_cast<int>(threadIdx.x + BLOCK_DIM_X * (threadIdx.y + BLOCK_DIM_Y * threadIdx.z));
#pragma unroll
    for (int i = 0; i < BINS_PER_THREAD; ++i) {
      const int bin = rank + i * kThreads;
      counts[i] = bin < BINS ? static_cast<CounterT>(storage_.counters[bin]) : CounterT(0);
    }
  }

 private:
  TempStorage& storage_;
};
}  // namespace coop_adapt
