// emit: several plans -> one CUDA C++ translation unit (a bundle's source).
#pragma once

#include <string>
#include <vector>

#include "coop/plan.hpp"

namespace coop {

struct EmittedSource {
  std::string text;
  std::vector<std::string> symbols;  // wrapper symbol per input plan, same order
  // NVRTC name expressions whose lowered names carry sizeof/alignof of a
  // TempStorage, one per distinct specialization with scratch, in the order the
  // source declares them: the same text always has the same probes, so a cached
  // compile of it has the layouts of any bundle that emits that text.
  std::vector<std::string> layout_probes;
  std::vector<int> probe_of_plan;          // per input plan: its index in layout_probes, -1 without scratch
  std::string identity;                    // digest of (engine version, toolkit identity, arch, plans)
  std::vector<std::string> nvrtc_options;  // what the plans' CUB classes need of NVRTC (GroupForm)
};

// Context that makes symbols unique to a compilation identity, so providers from
// different bundles never collide at link time.
struct EmitContext {
  std::string toolkit_identity;
  std::string arch;          // "sm_90"
  bool trim_headers = true;  // leave out of the parse what the bundle does not use (header_trim.hpp)
};

EmittedSource emit(const std::vector<Plan>& plans, const EmitContext& context);

// The engine version string baked into identities and cache keys.
const char* engine_version();

}  // namespace coop
