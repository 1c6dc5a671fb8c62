#include "header_trim.hpp"

namespace coop {
namespace {

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

std::string trimmed_headers() {
  // Not CCCL_DISABLE_FP16_SUPPORT with _BF16_: without both, CUB 3.0's ThreadReduce takes its
  // 16-bit SIMD path for every type, and asserts. The narrow floats only lose their traits.
  std::string text =
      "#define CCCL_DISABLE_NVFP8_SUPPORT\n#define CCCL_DISABLE_NVFP6_SUPPORT\n"
      "#define CCCL_DISABLE_NVFP4_SUPPORT\n";
  for (const char* name : kUnusedPtxInstructions) text += std::string("#define _CUDA_PTX_") + name + "_H_\n";
  return text;
}

}  // namespace coop
