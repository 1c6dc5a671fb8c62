// Host-only checks, no GPU: the engine refuses at plan time what CUB cannot
// instantiate (warp_transpose or warp groups in a block that is not whole warps)
// and a STATIC valid_items outside the tile. Prints one line, and the failures.
#pragma once

namespace coop::gpu_test {

struct RejectionResult {
  int passed = 0;
  int failed = 0;
};

RejectionResult check_rejections();

}  // namespace coop::gpu_test
