// Warnings: faults that cost a compile or a fallback but never fail a call (a cache
// that cannot be used, an environment variable with a value nobody accepts). They go
// to one process-wide sink: stderr by default; the Python extension installs one that
// turns them into Python warnings.
#pragma once

#include <functional>
#include <string>

namespace coop {

using WarningSink = std::function<void(const std::string& text)>;

// Replaces the sink (nullptr restores stderr); returns the previous one.
WarningSink set_warning_sink(WarningSink sink);

// Sends `text` to the sink ("cuda.coop: warning: <text>" on stderr by default).
void warn(const std::string& text);

// Sends `text` the first time `key` is warned about in this process, never again:
// for facts that stay true for the whole process (an environment variable's value).
void warn_once(const std::string& key, const std::string& text);

}  // namespace coop
