#include "test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace coop::testing {

TempDir::TempDir() {
  std::random_device random;
  path_ = std::filesystem::temp_directory_path() /
          ("coop-test-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<char> read_bytes(const std::filesystem::path& path) {
  const std::string text = read_text(path);
  return {text.begin(), text.end()};
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  write_text(path, std::string(bytes.begin(), bytes.end()));
}

EngineConfig isolated_engine_config(const std::filesystem::path& cache_dir) {
  EngineConfig config = EngineConfig::from_environment("test");
  config.cache = CacheConfig{true, cache_dir.string()};
  return config;
}

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t count = 0;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.output.append(buffer.data(), count);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CapturedWarnings::CapturedWarnings()
    : previous_(set_warning_sink([store = store_](const std::string& text) {
        const std::lock_guard lock(store->mutex);
        store->texts.push_back(text);
      })) {}

CapturedWarnings::~CapturedWarnings() { set_warning_sink(previous_); }

std::vector<std::string> CapturedWarnings::texts() const {
  const std::lock_guard lock(store_->mutex);
  return store_->texts;
}

std::string CapturedWarnings::joined() const {
  std::string text;
  for (const std::string& line : texts()) text += line + "\n";
  return text;
}

namespace {

void set_environment(const std::string& name, const std::optional<std::string>& value) {
  if (value) {
    ::setenv(name.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name.c_str());
  }
}

}  // namespace

ScopedEnv::ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  set_environment(name_, value);
}

ScopedEnv::~ScopedEnv() { set_environment(name_, old_); }

std::size_t count_lines_with(const std::string& text, const std::string& fragment) {
  std::size_t count = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) count += line.find(fragment) != std::string::npos ? 1 : 0;
  return count;
}

}  // namespace coop::testing
