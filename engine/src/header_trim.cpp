#include "header_trim.hpp"

#include <algorithm>

namespace coop {
namespace {

bool is_16_bit_float(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

bool uses_16_bit_floats(const Plan& plan) {
  if (is_16_bit_float(plan.facts.dtype)) return true;
  return std::any_of(plan.facts.dtypes.begin(), plan.facts.dtypes.end(),
                     [](const auto& named) { return is_16_bit_float(named.second); });
}

// cuda/__ptx/instructions/<name>.h, by include guard: none is used outside cuda/ptx's own
// device-wide and cluster-wide features (checked against CCCL 3.0 and the newest wheel).
constexpr const char* kUnusedPtxInstructions[] = {
    "TCGEN05_ALLOC",
    "TCGEN05_COMMIT",
    "TCGEN05_CP",
    "TCGEN05_FENCE",
    "TCGEN05_LD",
    "TCGEN05_MMA",
    "TCGEN05_MMA_WS",
    "TCGEN05_SHIFT",
    "TCGEN05_ST",
    "TCGEN05_WAIT",
    "MULTIMEM_LD_REDUCE",
    "MULTIMEM_RED",
    "MULTIMEM_ST",
    "TENSORMAP_CP_FENCEPROXY",
    "TENSORMAP_REPLACE",
    "CLUSTERLAUNCHCONTROL",
    "ST_BULK",
    "LD",
    "ST",
};

}  // namespace

std::string trimmed_headers(const std::vector<Plan>& plans) {
  std::string text =
      "#define CCCL_DISABLE_NVFP8_SUPPORT\n#define CCCL_DISABLE_NVFP6_SUPPORT\n"
      "#define CCCL_DISABLE_NVFP4_SUPPORT\n";
  if (std::none_of(plans.begin(), plans.end(), uses_16_bit_floats))
    text += "#define CCCL_DISABLE_FP16_SUPPORT\n#define CCCL_DISABLE_BF16_SUPPORT\n";
  for (const char* name : kUnusedPtxInstructions) text += std::string("#define _CUDA_PTX_") + name + "_H_\n";
  return text;
}

}  // namespace coop
