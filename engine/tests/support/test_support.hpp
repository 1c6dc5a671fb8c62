// Small helpers shared by the engine tests: scratch directories, files, processes.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coop/engine.hpp"

namespace coop::testing {

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::filesystem::path& path);
std::vector<char> read_bytes(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& text);
void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// An engine configured from the environment but caching under `cache_dir`, so
// tests neither read nor fill the user's cache.
EngineConfig isolated_engine_config(const std::filesystem::path& cache_dir);

// Runs `command` through /bin/sh, capturing its output.
CommandResult run_command(const std::string& command);

// Collects every coop::warn() made while it lives, instead of printing them.
class CapturedWarnings {
 public:
  CapturedWarnings();
  ~CapturedWarnings();
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  std::vector<std::string> texts() const;
  std::string joined() const;  // one per line, for messages

 private:
  struct Store {
    std::mutex mutex;
    std::vector<std::string> texts;
  };
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
  WarningSink previous_;
};

// Sets or unsets one environment variable for a scope, then restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Counts the lines of `text` holding `fragment`.
std::size_t count_lines_with(const std::string& text, const std::string& fragment);

}  // namespace coop::testing
