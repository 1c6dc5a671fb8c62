namespace coop_adapt {
// The count of valid lanes, made from the int the wrapper passes. Its own type, so that an
// overload taking it never competes with CUB's taking a T& aggregate when T is int: an int
// aggregate (an lvalue) binds to T&, a count (a prvalue) cannot.
struct ValidLanes {
  int count;
  __device__ __forceinline__ ValidLanes(int valid_items) : count(valid_items) {}  // NOLINT: implicit by design
};

// cub::WarpScan with the seed's valid_items on one-value-per-lane scans, taken last. A scan's
// lane reads only the lanes before it, so the lanes below valid_items get CUB's own results
// whatever the others hold; only the aggregate must leave the invalid lanes out: it is the
// inclusive result (without an initial value) of the last valid lane, broadcast to the warp.
// valid_items arrives range-checked (1..LOGICAL_WARP_THREADS).
template <typename T, int LOGICAL_WARP_THREADS>
class WarpScanPartial : public ::cub::WarpScan<T, LOGICAL_WARP_THREADS> {
  using Base = ::cub::WarpScan<T, LOGICAL_WARP_THREADS>;

  __device__ __forceinline__ void aggregate_of(T inclusive, T& aggregate, ValidLanes valid) {
    aggregate = Base::Broadcast(inclusive, valid.count - 1);
  }

 public:
  using Base::Base;
  using Base::ExclusiveScan;
  using Base::ExclusiveSum;
  using Base::InclusiveScan;
  using Base::InclusiveSum;

  __device__ __forceinline__ void InclusiveSum(T input, T& output, ValidLanes) { Base::InclusiveSum(input, output); }

  __device__ __forceinline__ void InclusiveSum(T input, T& output, T& aggregate, ValidLanes valid) {
    Base::InclusiveSum(input, output);
    aggregate_of(output, aggregate, valid);
  }

  __device__ __forceinline__ void ExclusiveSum(T input, T& output, ValidLanes) { Base::ExclusiveSum(input, output); }

  __device__ __forceinline__ void ExclusiveSum(T input, T& output, T& aggregate, ValidLanes valid) {
    T inclusive;
    Base::InclusiveSum(input, inclusive);
    Base::ExclusiveSum(input, output);
    aggregate_of(inclusive, aggregate, valid);
  }

  template <typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& output, ScanOp scan_op, ValidLanes) {
    Base::InclusiveScan(input, output, scan_op);
  }

  template <typename ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& aggregate, ValidLanes valid) {
    Base::InclusiveScan(input, output, scan_op);
    aggregate_of(output, aggregate, valid);
  }

  template <typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, ValidLanes) {
    Base::ExclusiveScan(input, output, initial_value, scan_op);
  }

  template <typename ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& aggregate,
                                                ValidLanes valid) {
    T inclusive;
    Base::InclusiveScan(input, inclusive, scan_op);
    Base::ExclusiveScan(input, output, initial_value, scan_op);
    aggregate_of(inclusive, aggregate, valid);
  }
};
}  // namespace coop_adapt
