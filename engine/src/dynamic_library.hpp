// dynamic_library: a shared library opened at run time, so the engine works with whichever
// NVRTC and nvJitLink the toolkit search finds instead of the one present at link time.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace coop {

class DynamicLibrary {
 public:
  // Throws coop::Error(Toolkit) with dlerror()'s text. The library may not take SIGINT or SIGTERM
  // from the process, neither while it loads nor later (see process_signals.hpp).
  static DynamicLibrary open(const std::string& path);

  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  const std::string& path() const { return path_; }

  // nullptr when the library does not export `name`.
  void* find(const std::string& name) const;

  // Throws coop::Error(Toolkit) naming the library and the symbol.
  template <typename Function>
  Function symbol(const std::string& name) const {
    return reinterpret_cast<Function>(require(name));
  }

 private:
  DynamicLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  void* require(const std::string& name) const;

  std::string path_;
  void* handle_ = nullptr;
};

// The process's one `Api` (a table of a library's entry points) per library path.
// Never destroyed: a Compiler held by a static (the Python module's engine) may
// still call into the library while static destructors run.
template <typename Api>
Api& load_once(const std::string& path) {
  static std::mutex mutex;
  static auto* loaded = new std::map<std::string, std::unique_ptr<Api>>();
  const std::lock_guard lock(mutex);
  std::unique_ptr<Api>& api = (*loaded)[path];
  if (api == nullptr) api = std::make_unique<Api>(DynamicLibrary::open(path));
  return *api;
}

}  // namespace coop
