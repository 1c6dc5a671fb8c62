// nvrtc_api: the NVRTC entry points the engine calls, resolved at run time from the library the
// toolkit search found. The types mirror nvrtc.h (CUDA 12.8+) so no CUDA header is needed to build.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "dynamic_library.hpp"

namespace coop::nvrtc {

using Result = int;  // nvrtcResult
inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorCompilation = 6;
inline constexpr Result kErrorPchCreateHeapExhausted = 14;

using Program = struct ProgramHandle*;  // nvrtcProgram

struct Api {
  explicit Api(DynamicLibrary opened);

  // The process-wide instance for the library at `path`, loaded on first use and never unloaded:
  // NVRTC keeps process-global state (the PCH heap) that must outlive every Compiler.
  static Api& load(const std::string& path);

  std::string version() const;  // "13.0"

  DynamicLibrary library;
  int major = 0;
  int minor = 0;
  // Serializes compiles through this library: the PCH heap and its automatic PCH files are shared
  // by every program in the process.
  std::mutex compile_mutex;

  const char* (*get_error_string)(Result);
  Result (*create_program)(Program*, const char* source, const char* name, int header_count, const char* const* headers,
                           const char* const* include_names);
  Result (*destroy_program)(Program*);
  Result (*compile_program)(Program, int option_count, const char* const* options);
  Result (*get_program_log_size)(Program, std::size_t*);
  Result (*get_program_log)(Program, char*);
  Result (*get_ltoir_size)(Program, std::size_t*);
  Result (*get_ltoir)(Program, char*);
  Result (*add_name_expression)(Program, const char* expression);
  Result (*get_lowered_name)(Program, const char* expression, const char** lowered);
  // nullptr before NVRTC 12.8, which has no precompiled headers.
  Result (*get_pch_create_status)(Program);
  Result (*get_pch_heap_size_required)(Program, std::size_t*);
  Result (*set_pch_heap_size)(std::size_t);
  // The archs this NVRTC can target (75 for sm_75), ascending; nullptr before NVRTC 11.2.
  Result (*get_num_supported_archs)(int*);
  Result (*get_supported_archs)(int*);

  bool has_pch() const { return get_pch_create_status != nullptr; }
  // Empty when this NVRTC cannot say.
  std::vector<int> supported_archs() const;
  std::string describe(Result result) const;  // "NVRTC_ERROR_COMPILATION"
};

}  // namespace coop::nvrtc
