#include "dynamic_library.hpp"

#include <dlfcn.h>

#include <utility>

#include "coop/error.hpp"
#include "process_signals.hpp"

namespace coop {

DynamicLibrary DynamicLibrary::open(const std::string& path) {
  void* handle = nullptr;
  {
    const ProcessSignalsRestored restored;
    // RTLD_LOCAL keeps the library's symbols from interposing on another copy the host process
    // (a Python interpreter with CUDA wheels, say) may already have loaded.
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    const char* reason = ::dlerror();
    throw Error(ErrorKind::Toolkit, "cannot load " + path + ": " + (reason != nullptr ? reason : "dlopen failed"));
  }
  keep_process_signals(handle);
  return DynamicLibrary(path, handle);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : path_(std::move(other.path_)), handle_(std::exchange(other.handle_, nullptr)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) ::dlclose(handle_);
    path_ = std::move(other.path_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* DynamicLibrary::find(const std::string& name) const { return ::dlsym(handle_, name.c_str()); }

void* DynamicLibrary::require(const std::string& name) const {
  void* address = find(name);
  if (address == nullptr) {
    throw Error(ErrorKind::Toolkit, path_ + " does not export " + name + "; is it the right library?");
  }
  return address;
}

}  // namespace coop
