// Child processes: the build workers and the trap check run as copies of this
// executable, and nvcc runs as a command whose output is captured.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace coop::gpu_test {

// Starts this executable with `arguments`, its stdout and stderr going to `log_path`.
pid_t spawn_self(const std::vector<std::string>& arguments, const std::string& log_path);

// Waits for `pid`; returns its exit status, or 128 + signal when a signal ended it.
int wait_for(pid_t pid);

// Like wait_for, but returns false at once when `pid` is still running.
bool try_wait(pid_t pid, int& status);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `arguments` (no shell), capturing its output.
CommandResult run_command(const std::vector<std::string>& arguments);

std::string read_text(const std::string& path);
std::vector<char> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);
void write_bytes(const std::string& path, const std::vector<char>& bytes);

// The last `lines` lines of `text`.
std::string tail(const std::string& text, int lines);

}  // namespace coop::gpu_test
