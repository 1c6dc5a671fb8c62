namespace coop_adapt {
// cub::BlockDiscontinuity with one argument order for every mode: the values, the head and the
// tail flags (a mode leaves the flags it does not compute unwritten), the predicate, then the
// tile's neighbours. CUB's FlagHeadsAndTails overloads interleave flags and neighbours, and two
// of them differ only in which neighbour their lone T argument is, so each combination here has
// a name of its own.
template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y, int BLOCK_DIM_Z>
struct BlockDiscontinuityFlags : ::cub::BlockDiscontinuity<T, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z> {
  using Base = ::cub::BlockDiscontinuity<T, BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  using typename Base::TempStorage;

  __device__ __forceinline__ explicit BlockDiscontinuityFlags(TempStorage& storage) : Base(storage) {}

  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeads(T (&values)[N], int (&heads)[N], int (&)[N], FlagOp flag_op) {
    Base::FlagHeads(heads, values, flag_op);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeads(T (&values)[N], int (&heads)[N], int (&)[N], FlagOp flag_op,
                                            T predecessor) {
    Base::FlagHeads(heads, values, flag_op, predecessor);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagTails(T (&values)[N], int (&)[N], int (&tails)[N], FlagOp flag_op) {
    Base::FlagTails(tails, values, flag_op);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagTails(T (&values)[N], int (&)[N], int (&tails)[N], FlagOp flag_op, T successor) {
    Base::FlagTails(tails, values, flag_op, successor);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTails(T (&values)[N], int (&heads)[N], int (&tails)[N], FlagOp flag_op) {
    Base::FlagHeadsAndTails(heads, tails, values, flag_op);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTailsWithPredecessor(T (&values)[N], int (&heads)[N], int (&tails)[N],
                                                                   FlagOp flag_op, T predecessor) {
    Base::FlagHeadsAndTails(heads, predecessor, tails, values, flag_op);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTailsWithSuccessor(T (&values)[N], int (&heads)[N], int (&tails)[N],
                                                                 FlagOp flag_op, T successor) {
    Base::FlagHeadsAndTails(heads, tails, successor, values, flag_op);
  }
  template <int N, typename FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTailsWithBoth(T (&values)[N], int (&heads)[N], int (&tails)[N],
                                                            FlagOp flag_op, T predecessor, T successor) {
    Base::FlagHeadsAndTails(heads, predecessor, tails, successor, values, flag_op);
  }
};
}  // namespace coop_adapt
