// The CUDA C++ twins of the Python scan kernels (benchmarks/coop_kernels.py): each
// block (block_scan) or each warp of 32 lanes (warp_scan) loads its tile direct
// with CUB, scans it into a second array (inclusive or exclusive sum), as cuda.coop's
// scans return a fresh payload, and stores that direct. Both arrays live in
// registers: the code is the same as an in-place scan's.
// The load and the store are direct (no scratch), so the scan is the kernel's one
// scratch user and cuda.coop places no barrier; neither do the twins.
// benchmarks/twins.py instantiates these templates once per configuration as
// extern "C" kernels named after the row.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cuda/ptx>
#include <cuda/std/functional>

template <typename T, int BLOCK, int ITEMS, cub::BlockScanAlgorithm ALGORITHM, bool INCLUSIVE>
__device__ __forceinline__ void block_scan(const T* source, T* destination) {
  using Load = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_DIRECT, 1, 1>;
  using Scan = cub::BlockScan<T, BLOCK, ALGORITHM, 1, 1>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_DIRECT, 1, 1>;
  __shared__ typename Scan::TempStorage scratch;
  const auto tile = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS);
  T items[ITEMS];
  T scanned[ITEMS];
  Load().Load(source + tile, items);
  if constexpr (INCLUSIVE) {
    Scan(scratch).InclusiveSum(items, scanned);
  } else {
    Scan(scratch).ExclusiveSum(items, scanned);
  }
  Store().Store(destination + tile, scanned);
}

// CUB's WarpScan takes one value per lane. A thread's items are scanned the way
// BlockScan scans them, as cuda.coop composes it (engine/src/catalog/scan.cpp):
// reduce the thread's items, scan the partials across the warp exclusively, then
// scan the items in the thread seeded with that prefix (lane 0 has none for an
// inclusive sum; an exclusive sum scans from the initial value 0). CUB's thread
// scans are in cub::internal, where BlockScan takes them from too.
template <typename T, int BLOCK, int ITEMS, bool INCLUSIVE>
__device__ __forceinline__ void warp_scan(const T* source, T* destination) {
  constexpr int WARP = 32;
  using Load = cub::WarpLoad<T, ITEMS, cub::WARP_LOAD_DIRECT, WARP>;
  using Scan = cub::WarpScan<T, WARP>;
  using Store = cub::WarpStore<T, ITEMS, cub::WARP_STORE_DIRECT, WARP>;
  __shared__ typename Scan::TempStorage scratch[BLOCK / WARP];
  const auto tile = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) / WARP * (WARP * ITEMS);
  T items[ITEMS];
  T scanned[ITEMS];
  Load().Load(source + tile, items);
  T prefix = cub::ThreadReduce(items, ::cuda::std::plus<>{});
  if constexpr (INCLUSIVE) {
    Scan(scratch[threadIdx.x / WARP]).ExclusiveSum(prefix, prefix);
    const bool first_lane = ::cuda::ptx::get_sreg_laneid() % WARP == 0;
    cub::internal::ThreadScanInclusive(items, scanned, ::cuda::std::plus<>{}, prefix, !first_lane);
  } else {
    Scan(scratch[threadIdx.x / WARP]).ExclusiveScan(prefix, prefix, T{}, ::cuda::std::plus<>{});
    cub::internal::ThreadScanExclusive(items, scanned, ::cuda::std::plus<>{}, prefix, true);
  }
  Store().Store(destination + tile, scanned);
}
