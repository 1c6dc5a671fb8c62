#include "nvjitlink_api.hpp"

#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "coop/error.hpp"

namespace coop::nvjitlink {
namespace {

// The version query is the one unversioned entry point, so it runs before anything else resolves.
std::pair<unsigned, unsigned> query_version(const DynamicLibrary& library) {
  const auto version = library.symbol<Result (*)(unsigned*, unsigned*)>("nvJitLinkVersion");
  unsigned major = 0;
  unsigned minor = 0;
  if (version(&major, &minor) != kSuccess) {
    throw Error(ErrorKind::Toolkit, "nvJitLinkVersion failed in " + library.path());
  }
  return {major, minor};
}

}  // namespace

Api::Api(DynamicLibrary opened) : library(std::move(opened)) {
  std::tie(major, minor) = query_version(library);
  create = versioned<decltype(create)>("nvJitLinkCreate");
  destroy = versioned<decltype(destroy)>("nvJitLinkDestroy");
  add_data = versioned<decltype(add_data)>("nvJitLinkAddData");
  complete = versioned<decltype(complete)>("nvJitLinkComplete");
  get_linked_cubin_size = versioned<decltype(get_linked_cubin_size)>("nvJitLinkGetLinkedCubinSize");
  get_linked_cubin = versioned<decltype(get_linked_cubin)>("nvJitLinkGetLinkedCubin");
  get_error_log_size = versioned<decltype(get_error_log_size)>("nvJitLinkGetErrorLogSize");
  get_error_log = versioned<decltype(get_error_log)>("nvJitLinkGetErrorLog");
  get_info_log_size = versioned<decltype(get_info_log_size)>("nvJitLinkGetInfoLogSize");
  get_info_log = versioned<decltype(get_info_log)>("nvJitLinkGetInfoLog");
}

const Api& Api::load(const std::string& path) { return load_once<Api>(path); }

std::string Api::version() const { return std::to_string(major) + "." + std::to_string(minor); }

std::string Api::describe(Result result) {
  // In the order of nvJitLinkResult (nvJitLink.h, CUDA 13.0).
  static constexpr const char* kNames[] = {
      "NVJITLINK_SUCCESS",
      "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
      "NVJITLINK_ERROR_MISSING_ARCH",
      "NVJITLINK_ERROR_INVALID_INPUT",
      "NVJITLINK_ERROR_PTX_COMPILE",
      "NVJITLINK_ERROR_NVVM_COMPILE",
      "NVJITLINK_ERROR_INTERNAL",
      "NVJITLINK_ERROR_THREADPOOL",
      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
      "NVJITLINK_ERROR_FINALIZE",
      "NVJITLINK_ERROR_NULL_INPUT",
      "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
      "NVJITLINK_ERROR_ARCH_MISMATCH",
      "NVJITLINK_ERROR_OUTDATED_LIBRARY",
      "NVJITLINK_ERROR_MISSING_FATBIN",
      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
      "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
      "NVJITLINK_ERROR_LTO_NOT_ENABLED",
  };
  if (result >= 0 && result < static_cast<Result>(std::size(kNames))) return kNames[result];
  return "nvJitLink result " + std::to_string(result);
}

std::string Api::resolved_name(const std::string& function) const {
  // The API version in a symbol names the release that last changed the call: a 13.2 library
  // still exports __nvJitLinkCreate_13_0.
  const std::string major_text = std::to_string(major);
  std::vector<std::string> candidates;
  for (unsigned m = minor + 1; m-- > 0;) {
    candidates.push_back("__" + function + "_" + major_text + "_" + std::to_string(m));
  }
  candidates.push_back(function);
  std::string tried;
  for (const std::string& name : candidates) {
    if (library.find(name) != nullptr) return name;
    tried += (tried.empty() ? "" : ", ") + name;
  }
  throw Error(ErrorKind::Toolkit, library.path() + " (nvJitLink " + version() + ") exports none of " + tried);
}

}  // namespace coop::nvjitlink
