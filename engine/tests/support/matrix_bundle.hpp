// What the compile-matrix and scratch-oracle tests share: calls grouped the way they are
// compiled, one NVRTC call per bundle.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "coop/call_facts.hpp"

namespace coop::testing {

// Optional-argument bindings; the empty set is the overload without options.
using Bindings = std::map<std::string, OptionBinding>;

// One NVRTC compile's worth of calls.
struct MatrixBundle {
  std::string name;  // names the bundle in failure messages
  std::vector<CallFacts> calls;
};

}  // namespace coop::testing
