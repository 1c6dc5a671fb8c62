#include "environment.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>

#include "coop/warning.hpp"

extern char** environ;  // POSIX: the process environment

namespace coop::env {

const std::initializer_list<std::string_view> kKnownVariables = {
    "CUDA_COOP_CCCL_ROOT",     "CUDA_COOP_CUDA_INCLUDE", "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION",
    "CUDA_COOP_ENABLE_CACHE",  "CUDA_COOP_LOG",          "CUDA_COOP_NVJITLINK_LIBRARY",
    "CUDA_COOP_NVRTC_LIBRARY", "CUDA_COOP_PCH",          "CUDA_COOP_SOURCE_DUMP_DIR",
    "CUDA_COOP_WHEEL_ROOTS",
};

namespace {

// Edits (insert, delete, substitute) between two names: the known name a typo most likely meant.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace fs = std::filesystem;

std::optional<std::string> lookup(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Surrounding blanks and case never change what a value means.
std::string normalized(std::string_view value) {
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!value.empty() && blank(value.front())) value.remove_prefix(1);
  while (!value.empty() && blank(value.back())) value.remove_suffix(1);
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

std::string listed(std::initializer_list<std::string_view> words) {
  std::string text;
  for (std::string_view word : words) text += (text.empty() ? "" : ", ") + std::string(word);
  return text;
}

bool contains(std::initializer_list<std::string_view> words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Keyed by variable and value: a process that sees one bad value hears about it once.
void not_accepted(const char* name, const std::string& value, const std::string& expected, const std::string& kept) {
  warn_once(std::string(name) + "=" + value,
            std::string(name) + "='" + value + "' is not accepted; expected " + expected + "; " + kept);
}

// Why `directory` cannot hold files, or "" when it can.
std::string unusable_because(const fs::path& directory) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0) return std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return "not a directory";
  if (::access(directory.c_str(), W_OK | X_OK) != 0) return std::string("not writable: ") + std::strerror(errno);
  return "";
}

fs::path first_usable(std::initializer_list<fs::path> candidates) {
  for (const fs::path& candidate : candidates) {
    if (!candidate.empty() && unusable_because(candidate).empty()) return candidate;
  }
  return {};
}

}  // namespace

std::string text(const char* name) { return lookup(name).value_or(""); }

bool flag(const char* name, bool fallback) {
  const std::optional<std::string> value = lookup(name);
  if (!value) return fallback;
  const std::string word = normalized(*value);
  if (contains({"", "0", "false", "no", "off"}, word)) return false;
  if (contains({"1", "true", "yes", "on"}, word)) return true;
  not_accepted(name, *value, "1, true, yes or on to turn it on, 0, false, no, off or empty to turn it off (any case)",
               std::string("kept the default (") + (fallback ? "on" : "off") + ")");
  return fallback;
}

std::string choice(const char* name, std::initializer_list<std::string_view> accepted, std::string fallback) {
  const std::optional<std::string> value = lookup(name);
  if (!value) return fallback;
  const std::string word = normalized(*value);
  if (word.empty()) return fallback;
  if (contains(accepted, word)) return word;
  not_accepted(name, *value, "one of " + listed(accepted) + " (any case)", "kept the default (" + fallback + ")");
  return fallback;
}

std::vector<std::string> words(const char* name, std::initializer_list<std::string_view> accepted) {
  const std::string value = text(name);
  std::vector<std::string> given;
  std::string unknown;
  for (std::size_t start = 0; start <= value.size();) {
    const std::size_t end = std::min(value.find(',', start), value.size());
    const std::string word = normalized(std::string_view(value).substr(start, end - start));
    if (contains(accepted, word)) {
      given.push_back(word);
    } else if (!word.empty()) {
      unknown += (unknown.empty() ? "'" : ", '") + word + "'";
    }
    start = end + 1;
  }
  if (!unknown.empty()) {
    not_accepted(name, value, "a comma-separated list of " + listed(accepted) + " (any case)", "ignored " + unknown);
  }
  std::vector<std::string> ordered;
  for (std::string_view word : accepted) {
    if (std::find(given.begin(), given.end(), word) != given.end()) ordered.emplace_back(word);
  }
  return ordered;
}

void warn_unknown_variables() {
  constexpr std::string_view kPrefix = "CUDA_COOP_";
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view assignment(*entry);
    const std::string_view name = assignment.substr(0, assignment.find('='));
    if (name.substr(0, kPrefix.size()) != kPrefix || contains(kKnownVariables, name)) continue;
    const auto closest = std::min_element(kKnownVariables.begin(), kKnownVariables.end(), [&](auto a, auto b) {
      return edit_distance(name, a) < edit_distance(name, b);
    });
    warn_once(std::string(name), std::string(name) + " is not a variable cuda.coop reads (did you mean " +
                                     std::string(*closest) + "?); it has no effect. Known: " + listed(kKnownVariables));
  }
}

fs::path temp_directory(const fs::path& last_resort) {
  const std::string tmpdir = text("TMPDIR");
  if (!tmpdir.empty() && unusable_because(tmpdir).empty()) return tmpdir;
  const fs::path chosen = first_usable({"/tmp", last_resort});
  if (!tmpdir.empty()) {
    warn_once("TMPDIR=" + tmpdir, "TMPDIR='" + tmpdir + "' is not usable (" + unusable_because(tmpdir) +
                                      "); expected a writable directory; the sources of failed compiles go to " +
                                      (chosen.empty() ? std::string("nowhere") : "'" + chosen.native() + "'"));
  }
  return chosen;
}

}  // namespace coop::env
