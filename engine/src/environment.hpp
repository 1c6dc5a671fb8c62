// environment: the one reader of the engine's environment variables. A value nobody
// accepts never fails a call and is never ignored silently: it keeps the default and
// warns once per process, naming the variable, the value and what is accepted.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace coop::env {

// The variable's value; "" when it is unset.
std::string text(const char* name);

// 0/false/no/off/"" are false and 1/true/yes/on are true, in any case; unset keeps `fallback`.
bool flag(const char* name, bool fallback);

// One of `accepted`, lower-cased (the value is matched in any case); unset or empty keeps `fallback`.
std::string choice(const char* name, std::initializer_list<std::string_view> accepted, std::string fallback);

// The comma-separated words of the value that are in `accepted`, lower-cased, in `accepted` order.
std::vector<std::string> words(const char* name, std::initializer_list<std::string_view> accepted);

// Where a file that must outlive the process may go: TMPDIR, else /tmp, else `last_resort`,
// whichever is a writable directory first; "" when none is. An unusable TMPDIR warns once.
std::filesystem::path temp_directory(const std::filesystem::path& last_resort);

// Every variable cuda.coop reads whose name starts with CUDA_COOP_ (the engine's and the Python
// layer's, in one list so that both sides agree).
extern const std::initializer_list<std::string_view> kKnownVariables;

// Warns once per name about each CUDA_COOP_* variable in the environment that is not in
// kKnownVariables (a misspelling, or one from another version), naming the closest known one.
void warn_unknown_variables();

}  // namespace coop::env
