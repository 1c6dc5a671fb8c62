// The negative check: a RUNTIME valid_items outside 0..tile must trap in the
// wrapper. A trap poisons the CUDA context, so it runs last and in a child
// process (this executable with --trap-check) that reuses an already built cubin.
#pragma once

#include <string>
#include <vector>

#include "matrix.hpp"

namespace coop::gpu_test {

// In the child: a control launch with in-range values must pass, then a launch
// with every valid_items = `value` must fail. Returns the process exit status:
// 0 when it trapped as required.
int run_trap_child(const std::string& work_dir, long long value, double timeout_seconds);

struct TrapOutcome {
  bool ok = false;
  std::string detail;  // the child's report
};

// In the parent: runs the child for `value` and reads its verdict.
TrapOutcome check_trap(const std::string& work_dir, long long value, double timeout_seconds);

}  // namespace coop::gpu_test
