// target: what a target architecture offers the code compiled for it. Today the
// shared memory one block may use, which bounds a kernel's scratch.
#pragma once

#include <string>

namespace coop {

// Bytes of shared memory one block may use on `arch` ("sm_90"), dynamic shared
// memory opted in included (cudaDevAttrMaxSharedMemoryPerBlockOptin); throws
// coop::Error(InvalidArgument) when `arch` is not sm_<digits>. An arch this table
// does not know gets 48 KiB, what every CUDA GPU gives a block.
int max_shared_memory_per_block(const std::string& arch);

}  // namespace coop
