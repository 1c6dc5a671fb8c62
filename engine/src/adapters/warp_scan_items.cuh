// CCCL 3.0 has the thread-level scans in cub::internal, later releases in cub::detail: the
// using-directives let one qualified name find them in whichever namespace the headers have.
// (Declared inside CUB's own, ABI-versioned inline namespace, so that ::cub::internal stays one.)
CUB_NAMESPACE_BEGIN
namespace internal {}
namespace detail {}
CUB_NAMESPACE_END
namespace coop_adapt::thread_scan {
using namespace ::cub::internal;
using namespace ::cub::detail;
}  // namespace coop_adapt::thread_scan

namespace coop_adapt {
// cub::WarpScan with the ThreadData overloads of cub::BlockScan (no prefix callback).
template <typename T, int LOGICAL_WARP_THREADS>
class WarpScanItems : public ::cub::WarpScan<T, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpScan<T, LOGICAL_WARP_THREADS>;

  static __device__ __forceinline__ bool first_lane() {
    return ::cuda::ptx::get_sreg_laneid() % LOGICAL_WARP_THREADS == 0;
  }

  // The one body of every overload below. The warp's exclusive scan of the
  // partials is WarpScan's ExclusiveSum (SUM) or its ExclusiveScan, given
  // warp_args as they take them: [initial_value,] scan_op[, warp_aggregate].
  // `seeded`: an initial value gives lane 0 a prefix too.
  template <bool INCLUSIVE, bool SUM, int ITEMS_PER_THREAD, typename ScanOp, typename... WarpArgs>
  __device__ __forceinline__ void scan_items(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                             ScanOp scan_op, bool seeded, WarpArgs&&... warp_args) {
    T prefix = ::cub::ThreadReduce(input, scan_op);
    if constexpr (SUM) {
      Base::ExclusiveSum(prefix, prefix, warp_args...);
    } else {
      Base::ExclusiveScan(prefix, prefix, warp_args...);
    }
    const bool apply_prefix = seeded || !first_lane();
    if constexpr (INCLUSIVE) {
      thread_scan::ThreadScanInclusive(input, output, scan_op, prefix, apply_prefix);
    } else {
      thread_scan::ThreadScanExclusive(input, output, scan_op, prefix, apply_prefix);
    }
  }

 public:
  using Base::Base;
  using Base::ExclusiveScan;
  using Base::ExclusiveSum;
  using Base::InclusiveScan;
  using Base::InclusiveSum;

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    scan_items<true, true>(input, output, ::cuda::std::plus<>{}, false);
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               T& warp_aggregate) {
    scan_items<true, true>(input, output, ::cuda::std::plus<>{}, false, warp_aggregate);
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    ExclusiveScan(input, output, T{}, ::cuda::std::plus<>{});
  }

  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               T& warp_aggregate) {
    ExclusiveScan(input, output, T{}, ::cuda::std::plus<>{}, warp_aggregate);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op) {
    scan_items<true, false>(input, output, scan_op, false, scan_op);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, T& warp_aggregate) {
    scan_items<true, false>(input, output, scan_op, false, scan_op, warp_aggregate);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op) {
    scan_items<true, false>(input, output, scan_op, true, initial_value, scan_op);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op, T& warp_aggregate) {
    scan_items<true, false>(input, output, scan_op, true, initial_value, scan_op, warp_aggregate);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op) {
    scan_items<false, false>(input, output, scan_op, false, scan_op);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, T& warp_aggregate) {
    scan_items<false, false>(input, output, scan_op, false, scan_op, warp_aggregate);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op) {
    scan_items<false, false>(input, output, scan_op, true, initial_value, scan_op);
  }

  template <int ITEMS_PER_THREAD, typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op, T& warp_aggregate) {
    scan_items<false, false>(input, output, scan_op, true, initial_value, scan_op, warp_aggregate);
  }
};
}  // namespace coop_adapt
