namespace coop_adapt {
// A predicate with its arguments swapped: a user's strict "less" made a "greater" for a
// descending sort, without a second compile of the user's function.
template <typename Predicate>
struct Reversed {
  Predicate predicate;

  template <typename A, typename B>
  __device__ __forceinline__ bool operator()(const A& a, const B& b) const {
    return predicate(b, a);
  }
};
}  // namespace coop_adapt
