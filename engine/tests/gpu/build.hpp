// Building a batch, no GPU needed: plan its calls, compile them into one bundle
// (NVRTC, through the engine's caches), generate the test kernels, compile them
// with nvcc to an object holding LTO-IR, and link both with nvJitLink to a cubin.
//
// NVRTC compiles are serialized inside one process, so batches are built by
// worker processes (copies of this executable) that share a work directory:
//   selected               the batch indices to build, space separated
//   batch_<i>.claim        created (O_EXCL) by the worker that builds batch i
//   batch_<i>.cu           the test kernels; batch_<i>.bundle.cu the engine's source
//   batch_<i>.cubin        the linked cubin, or batch_<i>.error with why not
//   batch_<i>.info         one line of timings
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "matrix.hpp"

namespace coop::gpu_test {

std::string batch_path(const std::string& work_dir, int index, const std::string& suffix);

// The nvcc that compiles the test kernels: $COOP_NVCC, else the one CMake found.
std::string nvcc_path();

// In the parent: builds `selected` with `jobs` workers (0: one per core), printing
// progress; kills the workers when `stop()` turns true. Failures are left in the
// work directory as batch_<i>.error, or as a missing cubin when a worker died.
void build_batches(const std::string& work_dir, const std::string& arch, const std::vector<int>& selected, int jobs,
                   const std::function<bool()>& stop);

// A worker's whole life: claims and builds batches until none is left. Returns 0;
// a batch that fails leaves batch_<i>.error and the worker goes on.
int run_build_worker(const std::string& work_dir, const std::string& arch);

}  // namespace coop::gpu_test
