#include "coop/bundle.hpp"

namespace coop {

std::string declaration(const Provider& provider) {
  std::string text = "extern \"C\" __device__ int " + provider.symbol + "(void* ret";
  for (const auto& param : provider.abi) text += ", " + c_parameter(param);
  return text + ");";
}

}  // namespace coop
