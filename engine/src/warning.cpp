#include "coop/warning.hpp"

#include <iostream>
#include <mutex>
#include <set>
#include <utility>

namespace coop {
namespace {

std::mutex& sink_mutex() {
  static std::mutex mutex;
  return mutex;
}

WarningSink& current_sink() {
  static WarningSink sink;
  return sink;
}

}  // namespace

WarningSink set_warning_sink(WarningSink sink) {
  const std::lock_guard lock(sink_mutex());
  return std::exchange(current_sink(), std::move(sink));
}

void warn(const std::string& text) {
  WarningSink sink;
  {
    const std::lock_guard lock(sink_mutex());
    sink = current_sink();
  }
  // Called outside the lock: a sink may take locks of its own (the Python one takes the GIL).
  if (sink) {
    sink(text);
  } else {
    std::cerr << "cuda.coop: warning: " << text << "\n";
  }
}

void warn_once(const std::string& key, const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    const std::lock_guard lock(mutex);
    if (!warned.insert(key).second) return;
  }
  warn(text);
}

}  // namespace coop
