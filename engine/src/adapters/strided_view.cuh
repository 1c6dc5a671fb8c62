// An N-D array view of any strides, read and written as CUB reads a pointer: element
// i of the view is the i-th element of a C-order walk over its extents (the last index
// fastest). CUB's block and warp loads and stores take it as a random-access iterator;
// their vectorized algorithms take the scalar path for it, as for any iterator.
// Emitted once into each generated source that needs it (no include guard: it is text).

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/iterator>

namespace coop_adapt {

template <typename T, int DIMENSIONS>
struct StridedView {
  using value_type = T;
  using reference = T&;
  using pointer = T*;
  using difference_type = ::cuda::std::ptrdiff_t;
  using iterator_category = ::cuda::std::random_access_iterator_tag;

  T* base;                                   // the view's first element
  ::cuda::std::int64_t extents[DIMENSIONS];  // elements along each dimension
  ::cuda::std::int64_t strides[DIMENSIONS];  // elements between neighbours along it (may be negative)
  ::cuda::std::int64_t position = 0;         // where this iterator stands in the C-order walk

  // The element offset from `base` of the element at C-order position `flat`.
  __host__ __device__ __forceinline__ ::cuda::std::int64_t offset_of(::cuda::std::int64_t flat) const {
    ::cuda::std::int64_t offset = 0;
#pragma unroll
    for (int dimension = DIMENSIONS - 1; dimension > 0; --dimension) {
      offset += (flat % extents[dimension]) * strides[dimension];
      flat /= extents[dimension];
    }
    return offset + flat * strides[0];
  }

  // Elements in the view (from `base`, whatever this iterator's position).
  __host__ __device__ __forceinline__ ::cuda::std::int64_t size() const {
    ::cuda::std::int64_t count = 1;
#pragma unroll
    for (int dimension = 0; dimension < DIMENSIONS; ++dimension) count *= extents[dimension];
    return count;
  }

  __host__ __device__ __forceinline__ T& operator[](difference_type index) const {
    return base[offset_of(position + index)];
  }
  __host__ __device__ __forceinline__ T& operator*() const { return (*this)[0]; }

  __host__ __device__ __forceinline__ StridedView operator+(difference_type steps) const {
    StridedView moved = *this;
    moved.position += steps;
    return moved;
  }
  __host__ __device__ __forceinline__ StridedView operator-(difference_type steps) const { return *this + (-steps); }
  __host__ __device__ __forceinline__ difference_type operator-(const StridedView& other) const {
    return static_cast<difference_type>(position - other.position);
  }
  __host__ __device__ __forceinline__ StridedView& operator+=(difference_type steps) {
    position += steps;
    return *this;
  }
  __host__ __device__ __forceinline__ StridedView& operator-=(difference_type steps) { return *this += -steps; }
  __host__ __device__ __forceinline__ StridedView& operator++() { return *this += 1; }
  __host__ __device__ __forceinline__ StridedView operator++(int) {
    StridedView before = *this;
    ++*this;
    return before;
  }
  __host__ __device__ __forceinline__ bool operator==(const StridedView& other) const {
    return position == other.position;
  }
  __host__ __device__ __forceinline__ bool operator!=(const StridedView& other) const {
    return position != other.position;
  }
};

}  // namespace coop_adapt
