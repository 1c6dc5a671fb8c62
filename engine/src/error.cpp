#include "coop/error.hpp"

namespace coop {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidGroup:
      return "InvalidGroupError";
    case ErrorKind::UnsupportedOperation:
      return "UnsupportedOperationError";
    case ErrorKind::InvalidArgument:
      return "InvalidArgumentError";
    case ErrorKind::ProviderCompile:
      return "ProviderCompileError";
    case ErrorKind::Toolkit:
      return "ToolkitError";
    case ErrorKind::Link:
      return "LinkError";
    case ErrorKind::Cache:
      return "CacheError";
  }
  return "Error";
}

Error::Error(ErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}

void reject(ErrorKind kind, const std::string& call, const std::string& argument, const std::string& value,
            const std::string& expected) {
  throw Error(kind, call + ": argument '" + argument + "' = " + value + " is not allowed; expected " + expected);
}

}  // namespace coop
