// Errors are data: every failure names the call, the argument, the value given
// and what was expected, so the CLI and the Python layer can report it verbatim.
#pragma once

#include <stdexcept>
#include <string>

namespace coop {

enum class ErrorKind {
  InvalidGroup,          // bad shape, incomplete warps, bad partition width
  UnsupportedOperation,  // family x group x dtype x option not in the catalog
  InvalidArgument,       // a field or option value outside what is allowed
  ProviderCompile,       // NVRTC rejected the generated source
  Toolkit,               // NVRTC / nvJitLink / headers not found or unusable
  Link,                  // nvJitLink failed
  Cache,                 // the persistent cache could not be used
};

const char* to_string(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message);
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// "<call>: argument '<argument>' = <value> is not allowed; expected <expected>".
[[noreturn]] void reject(ErrorKind kind, const std::string& call, const std::string& argument, const std::string& value,
                         const std::string& expected);

}  // namespace coop
