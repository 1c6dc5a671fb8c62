// The CUDA C++ twin of the Python batched warp reduction (benchmarks/coop_kernels.py): each warp
// loads its tile direct with CUB (BATCHES items per lane, item b of every lane in batch b), sums
// the batches with cub::WarpReduceBatched into striped results (lane l, slot i: batch l + 32 i),
// as cuda.coop plans coop.reduce_batched (engine/src/catalog/families/reduce_batched.cpp), and
// each batch's lane writes its sum. Needs CCCL 3.5 or newer (benchmarks/twins.py includes this
// file only for rows configs.py made, which it makes only where the CCCL has the class).
#pragma once

#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_reduce_batched.cuh>
#include <cuda/std/functional>

template <typename T, int BLOCK, int BATCHES>
__device__ __forceinline__ void warp_reduce_batched(const T* source, T* destination) {
  constexpr int WARP = 32;
  constexpr int PER_LANE = (BATCHES + WARP - 1) / WARP;
  using Load = cub::WarpLoad<T, BATCHES, cub::WARP_LOAD_DIRECT, WARP>;
  using Reduce = cub::WarpReduceBatched<T, BATCHES, WARP, false>;
  __shared__ typename Reduce::TempStorage scratch[BLOCK / WARP];
  const auto index = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP;
  const int lane = threadIdx.x % WARP;
  T items[BATCHES];
  T sums[PER_LANE];
  Load().Load(source + index * (WARP * BATCHES), items);
  Reduce(scratch[threadIdx.x / WARP]).ReduceToStriped(items, sums, ::cuda::std::plus<>{});
  for (int i = 0; i < PER_LANE; ++i) {
    if (lane + i * WARP < BATCHES) destination[index * BATCHES + lane + i * WARP] = sums[i];
  }
}
