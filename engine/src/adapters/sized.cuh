// A contiguous array with its element count, as a method that bounds what it reads or writes
// receives it (ArrayType::sized): indexed from its first element as the pointer it holds, with
// size() as a StridedView has. Emitted once into each generated source that needs it (no include
// guard: it is text).

#include <cuda/std/cstdint>

namespace coop_adapt {

template <typename T>
struct Sized {
  T* data;
  ::cuda::std::int64_t count;  // elements from data on

  __host__ __device__ __forceinline__ T& operator[](::cuda::std::int64_t index) const { return data[index]; }
  __host__ __device__ __forceinline__ ::cuda::std::int64_t size() const { return count; }
};

}  // namespace coop_adapt
