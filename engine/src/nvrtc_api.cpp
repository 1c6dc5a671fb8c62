#include "nvrtc_api.hpp"

#include <map>
#include <memory>

#include "coop/error.hpp"

namespace coop::nvrtc {
namespace {

template <typename Function>
Function optional_symbol(const DynamicLibrary& library, const std::string& name) {
  return reinterpret_cast<Function>(library.find(name));
}

}  // namespace

Api::Api(DynamicLibrary opened)
    : library(std::move(opened)),
      get_error_string(library.symbol<decltype(get_error_string)>("nvrtcGetErrorString")),
      create_program(library.symbol<decltype(create_program)>("nvrtcCreateProgram")),
      destroy_program(library.symbol<decltype(destroy_program)>("nvrtcDestroyProgram")),
      compile_program(library.symbol<decltype(compile_program)>("nvrtcCompileProgram")),
      get_program_log_size(library.symbol<decltype(get_program_log_size)>("nvrtcGetProgramLogSize")),
      get_program_log(library.symbol<decltype(get_program_log)>("nvrtcGetProgramLog")),
      get_ltoir_size(library.symbol<decltype(get_ltoir_size)>("nvrtcGetLTOIRSize")),
      get_ltoir(library.symbol<decltype(get_ltoir)>("nvrtcGetLTOIR")),
      add_name_expression(library.symbol<decltype(add_name_expression)>("nvrtcAddNameExpression")),
      get_lowered_name(library.symbol<decltype(get_lowered_name)>("nvrtcGetLoweredName")),
      get_pch_create_status(optional_symbol<decltype(get_pch_create_status)>(library, "nvrtcGetPCHCreateStatus")),
      get_pch_heap_size_required(
          optional_symbol<decltype(get_pch_heap_size_required)>(library, "nvrtcGetPCHHeapSizeRequired")),
      set_pch_heap_size(optional_symbol<decltype(set_pch_heap_size)>(library, "nvrtcSetPCHHeapSize")),
      get_num_supported_archs(optional_symbol<decltype(get_num_supported_archs)>(library, "nvrtcGetNumSupportedArchs")),
      get_supported_archs(optional_symbol<decltype(get_supported_archs)>(library, "nvrtcGetSupportedArchs")) {
  const auto nvrtc_version = library.symbol<Result (*)(int*, int*)>("nvrtcVersion");
  if (nvrtc_version(&major, &minor) != kSuccess) {
    throw Error(ErrorKind::Toolkit, "nvrtcVersion failed in " + library.path());
  }
}

Api& Api::load(const std::string& path) { return load_once<Api>(path); }

std::string Api::version() const { return std::to_string(major) + "." + std::to_string(minor); }

std::vector<int> Api::supported_archs() const {
  int count = 0;
  if (get_num_supported_archs == nullptr || get_supported_archs == nullptr) return {};
  if (get_num_supported_archs(&count) != kSuccess || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (get_supported_archs(archs.data()) != kSuccess) return {};
  return archs;
}

std::string Api::describe(Result result) const {
  const char* text = get_error_string(result);
  return text != nullptr ? text : "NVRTC result " + std::to_string(result);
}

}  // namespace coop::nvrtc
