// The CUDA C++ twins of the row workloads' kernels (the examples' kernels, built by
// benchmarks/row_kernels.py): the same CUB calls in the same order, a block per row,
// compiled by nvcc (benchmarks/row_twins.py). A cooperative call whose result every
// thread gets (coop.reduce, coop.sum) is CUB's reduction and a broadcast through a
// slot beside its scratch; two calls that share scratch are separated by a barrier, as
// cuda.coop separates them.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/std/functional>

#include "reduce.cuh"  // WithResult: a reduction's scratch with the slot its result is broadcast through

namespace rows {

// The block's reduction of `items` under `op`, in every thread.
template <int THREADS, int ITEMS, typename T, typename Op, typename Scratch>
__device__ __forceinline__ T broadcast_reduce(Scratch& scratch, T (&items)[ITEMS], Op op) {
  using Reduce = cub::BlockReduce<T, THREADS>;
  const T first_thread = Reduce(scratch.storage).Reduce(items, op);
  if (threadIdx.x == 0) scratch.result = first_thread;
  __syncthreads();
  return scratch.result;
}

template <int THREADS, int ITEMS>
__device__ __forceinline__ void softmax(const float* matrix, float* result) {
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_STRIPED>;
  using Reduce = cub::BlockReduce<float, THREADS>;
  __shared__ WithResult<typename Reduce::TempStorage, float> scratch;
  const auto row = static_cast<long long>(blockIdx.x) * (THREADS * ITEMS);
  float values[ITEMS];
  Load().Load(matrix + row, values);
  const float largest = broadcast_reduce<THREADS>(scratch, values, ::cuda::maximum<>{});
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) values[i] = __expf(values[i] - largest);  // the example's fast_expf
  __syncthreads();  // the second reduction reuses the first's scratch
  const float inverse = 1.0f / broadcast_reduce<THREADS>(scratch, values, ::cuda::std::plus<>{});
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) values[i] = values[i] * inverse;
  Store().Store(result + row, values);
}

// Sums of (x - x0) and of its square, as examples/layer_norm.py's "shifted" statistics.
struct ShiftedSums {
  float total, squares;
};

struct AddSums {
  __device__ __forceinline__ ShiftedSums operator()(const ShiftedSums& left, const ShiftedSums& right) const {
    return {left.total + right.total, left.squares + right.squares};
  }
};

// A layer norm's last step, as examples/layer_norm.py's kernels end: the row's values less
// its mean (0 for values centered already), scaled to unit deviation and by gamma, shifted
// by beta, stored.
template <int THREADS, int ITEMS>
__device__ __forceinline__ void scale_shift_and_store(float (&values)[ITEMS], float mean, float inverse_deviation,
                                                      const float* gamma, const float* beta, float* result_row) {
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_STRIPED>;
  float scale[ITEMS], shift[ITEMS];
  Load().Load(gamma, scale);
  Load().Load(beta, shift);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) values[i] = (values[i] - mean) * inverse_deviation * scale[i] + shift[i];
  Store().Store(result_row, values);
}

template <int THREADS, int ITEMS>
__device__ __forceinline__ void layer_norm(const float* matrix, const float* gamma, const float* beta, float* result,
                                           float epsilon) {
  constexpr int COLUMNS = THREADS * ITEMS;
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_STRIPED>;
  using Reduce = cub::BlockReduce<ShiftedSums, THREADS>;
  __shared__ WithResult<typename Reduce::TempStorage, ShiftedSums> scratch;
  const auto row = static_cast<long long>(blockIdx.x) * COLUMNS;
  float values[ITEMS];
  Load().Load(matrix + row, values);
  const float first = matrix[row];
  ShiftedSums mine[1] = {{0.0f, 0.0f}};
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const float shifted = values[i] - first;
    mine[0].total += shifted;
    mine[0].squares += shifted * shifted;
  }
  const ShiftedSums sums = broadcast_reduce<THREADS>(scratch, mine, AddSums{});
  const float offset = sums.total / static_cast<float>(COLUMNS);
  const float mean = first + offset;
  const float variance = sums.squares / static_cast<float>(COLUMNS) - offset * offset;
  scale_shift_and_store<THREADS, ITEMS>(values, mean, 1.0f / sqrtf(variance + epsilon), gamma, beta, result + row);
}

// examples/layer_norm.py's "two_pass": the row's mean from one block sum, then the sum of
// squares about it from a second (the first's scratch reused after a barrier).
template <int THREADS, int ITEMS>
__device__ __forceinline__ void layer_norm_two_pass(const float* matrix, const float* gamma, const float* beta,
                                                    float* result, float epsilon) {
  constexpr int COLUMNS = THREADS * ITEMS;
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_STRIPED>;
  using Reduce = cub::BlockReduce<float, THREADS>;
  __shared__ WithResult<typename Reduce::TempStorage, float> scratch;
  const auto row = static_cast<long long>(blockIdx.x) * COLUMNS;
  float values[ITEMS];
  Load().Load(matrix + row, values);
  const float mean = broadcast_reduce<THREADS>(scratch, values, ::cuda::std::plus<>{}) / static_cast<float>(COLUMNS);
  float squares[1] = {0.0f};
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    values[i] -= mean;
    squares[0] += values[i] * values[i];
  }
  __syncthreads();  // the second reduction reuses the first's scratch
  const float variance =
      broadcast_reduce<THREADS>(scratch, squares, ::cuda::std::plus<>{}) / static_cast<float>(COLUMNS);
  scale_shift_and_store<THREADS, ITEMS>(values, 0.0f, 1.0f / sqrtf(variance + epsilon), gamma, beta, result + row);
}

// The running total of a row's tiles, held by the first warp (CUB's block prefix callback).
struct RunningTotal {
  float total;
  __device__ __forceinline__ float operator()(float tile_total) {
    const float before = total;
    total = before + tile_total;
    return before;
  }
};

template <int THREADS, int ITEMS>
__device__ __forceinline__ void cumsum(const float* matrix, float* sums, int columns) {
  constexpr int TILE = THREADS * ITEMS;
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
  using Scan = cub::BlockScan<float, THREADS>;
  __shared__ typename Scan::TempStorage scratch;
  RunningTotal seed{0.0f};
  float values[ITEMS];
  const auto first = static_cast<long long>(blockIdx.x) * columns;
  for (long long start = first; start < first + columns; start += TILE) {
    Load().Load(matrix + start, values);
    Scan(scratch).InclusiveSum(values, values, seed);
    Store().Store(sums + start, values);
    __syncthreads();  // the next tile's scan reuses the scratch
  }
}

// A step h -> a h + b; `first` followed by `then`, as examples/selective_scan.py's `affine`.
struct Affine {
  __device__ __forceinline__ float2 operator()(const float2& first, const float2& then) const {
    return {first.x * then.x, then.x * first.y + then.y};
  }
};

// The composed step of the row's tiles so far, held by the first warp.
struct RunningPair {
  float2 pair;
  __device__ __forceinline__ float2 operator()(float2 tile_step) {
    const float2 before = pair;
    pair = Affine{}(before, tile_step);
    return before;
  }
};

template <int THREADS, int ITEMS>
__device__ __forceinline__ void selective_scan(const float* x, const float* delta, const float* decay_rate,
                                               const float* B, const float* C, float* y, int channels, int length) {
  constexpr int TILE = THREADS * ITEMS;
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Store = cub::BlockStore<float, THREADS, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
  using Scan = cub::BlockScan<float2, THREADS>;
  __shared__ typename Scan::TempStorage scratch;
  const int row = blockIdx.x;  // (batch, channel)
  const int batch = row / channels;
  const float rate = decay_rate[row % channels];
  RunningPair seed{{1.0f, 0.0f}};  // the identity step
  float a[ITEMS], b[ITEMS], into_b[ITEMS], out_c[ITEMS];
  for (int start = 0; start < length; start += TILE) {
    const long long own = static_cast<long long>(row) * length + start;
    const long long shared = static_cast<long long>(batch) * length + start;
    Load().Load(delta + own, a);
    Load().Load(x + own, b);
    Load().Load(B + shared, into_b);
    Load().Load(C + shared, out_c);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const float step = a[i];
      a[i] = expf(step * rate);
      b[i] = step * into_b[i] * b[i];
    }
    float2 mine = {a[0], b[0]};  // this thread's items composed in order
#pragma unroll
    for (int i = 1; i < ITEMS; ++i) mine = Affine{}(mine, float2{a[i], b[i]});
    float2 before;
    Scan(scratch).ExclusiveScan(mine, before, Affine{}, seed);
    float h = before.y;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {  // h: the state before this thread's first item
      h = a[i] * h + b[i];
      out_c[i] = out_c[i] * h;
    }
    Store().Store(y + own, out_c);
    __syncthreads();  // the next tile's scan reuses the scratch
  }
}

}  // namespace rows
