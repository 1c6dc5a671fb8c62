#include "coop/bundle.hpp"

namespace coop {

std::string declaration(const Provider& provider) {
  std::string text = "extern \"C\" __device__ int " + provider.symbol + "(void* ret";
  for (const auto& param : provider.abi) {
    text += ", " + (param.kind == AbiKind::Pointer ? std::string("void* ") : param.cpp_type + " ") + param.name;
  }
  return text + ");";
}

}  // namespace coop
