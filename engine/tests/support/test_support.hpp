// Small helpers shared by the engine tests: scratch directories, files, processes.
#pragma once

#include <filesystem>
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

}  // namespace coop::testing
