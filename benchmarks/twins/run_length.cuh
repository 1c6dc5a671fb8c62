// The CUDA C++ twin of the Python run-length kernel (benchmarks/coop_kernels.py): each block loads
// its runs' values and then their lengths direct with CUB (the tile's two halves), decodes the
// stream's first window through the adapter cuda.coop's engine embeds
// (engine/src/adapters/block_run_length_window.cuh, on the include path: the same source, so the
// same scan and checks of the lengths before cub::BlockRunLengthDecode, in the offset dtype
// cuda.coop picks for int32 lengths, int32), and stores the window direct. The loads and the
// store use no scratch, so the decode is the kernel's one scratch user and cuda.coop places no
// barrier around it; neither does the twin. benchmarks/twins.py instantiates this template once
// per configuration.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_run_length_decode.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "block_run_length_window.cuh"

template <typename T, int BLOCK, int RUNS, int DECODED>
__device__ __forceinline__ void block_run_length_decode(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, RUNS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Decode = coop_adapt::BlockRunLengthWindow<T, BLOCK, RUNS, DECODED, T, 1, 1, T>;
  using Store = cub::BlockStore<T, BLOCK, DECODED, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Decode::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (2 * BLOCK * RUNS);
  T values[RUNS];
  T lengths[RUNS];
  T decoded[DECODED];
  Load().Load(source + tile, values);
  Load().Load(source + tile + BLOCK * RUNS, lengths);
  Decode(scratch).Decode(values, lengths, decoded);
  Store().Store(destination + tile, decoded);
}
