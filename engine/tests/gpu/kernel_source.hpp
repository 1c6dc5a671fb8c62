// The CUDA C++ test kernels of one batch: one __global__ per config that loads a
// tile through the config's load provider, dumps every thread's items, and stores
// them through its store provider. The wrappers are declared from Provider::abi,
// so the kernel calls exactly the ABI the engine promises.
#pragma once

#include <string>
#include <vector>

#include "coop/bundle.hpp"
#include "matrix.hpp"

namespace coop::gpu_test {

// Every kernel has this signature, whatever its config:
//   extern "C" __global__ void coop_gpu_test_<id>(const void* source, void* destination,
//       void* dump, const long long* valid_items_per_instance, OOB oob_default)
// where OOB is the ABI type of the dtype's oob_default (uint16 bits for 16-bit floats).
//
// `providers` holds two entries per config, load then store, in config order.
// Throws std::runtime_error on an ABI parameter the generator does not know.
std::string kernel_source(const Batch& batch, const std::vector<Provider>& providers);

}  // namespace coop::gpu_test
