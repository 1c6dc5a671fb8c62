// nvjitlink_api: the nvJitLink entry points the engine calls, resolved at run time. nvjitlink.h
// maps each call to a symbol versioned by the API (`__nvJitLinkCreate_13_0`); this resolves the
// versioned names of the library actually loaded, falling back to the unversioned exports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "dynamic_library.hpp"

namespace coop::nvjitlink {

using Result = int;  // nvJitLinkResult
inline constexpr Result kSuccess = 0;

enum class InputType : int {  // nvJitLinkInputType
  Cubin = 1,
  Ptx = 2,
  LtoIr = 3,
  Fatbin = 4,
  Object = 5,
};

using Handle = struct LinkHandle*;  // nvJitLinkHandle

struct Api {
  explicit Api(DynamicLibrary opened);

  // The process-wide instance for the library at `path`, loaded on first use and never unloaded.
  static const Api& load(const std::string& path);

  std::string version() const;  // "13.0"
  // "NVJITLINK_ERROR_INTERNAL": nvJitLink has no error-string call of its own.
  static std::string describe(Result result);
  // The versioned export of `function` for this library, e.g. "__nvJitLinkCreate_13_0".
  std::string resolved_name(const std::string& function) const;

  DynamicLibrary library;
  unsigned major = 0;
  unsigned minor = 0;

  Result (*create)(Handle*, std::uint32_t option_count, const char* const* options);
  Result (*destroy)(Handle*);
  Result (*add_data)(Handle, InputType, const void* data, std::size_t size, const char* name);
  Result (*complete)(Handle);
  Result (*get_linked_cubin_size)(Handle, std::size_t*);
  Result (*get_linked_cubin)(Handle, void*);
  Result (*get_error_log_size)(Handle, std::size_t*);
  Result (*get_error_log)(Handle, char*);
  Result (*get_info_log_size)(Handle, std::size_t*);
  Result (*get_info_log)(Handle, char*);

 private:
  template <typename Function>
  Function versioned(const std::string& function) const {
    return reinterpret_cast<Function>(library.find(resolved_name(function)));
  }
};

}  // namespace coop::nvjitlink
