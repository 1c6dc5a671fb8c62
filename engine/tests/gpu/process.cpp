#include "process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace coop::gpu_test {
namespace {

std::vector<char*> argv_of(std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  return argv;
}

// posix_spawn with stdin from /dev/null and stdout + stderr to `log_path`.
pid_t spawn(std::vector<std::string> arguments, const std::string& log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv = argv_of(arguments);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    throw std::runtime_error("cannot start " + arguments.front() + ": " + std::strerror(error));
  }
  return pid;
}

int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

pid_t spawn_self(const std::vector<std::string>& arguments, const std::string& log_path) {
  std::vector<std::string> command = {std::filesystem::read_symlink("/proc/self/exe").string()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  return spawn(std::move(command), log_path);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  return decode(status);
}

bool try_wait(pid_t pid, int& status) {
  int raw = 0;
  const pid_t done = ::waitpid(pid, &raw, WNOHANG);
  if (done == 0) return false;
  if (done < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  status = decode(raw);
  return true;
}

CommandResult run_command(const std::vector<std::string>& arguments) {
  char log_template[] = "/tmp/load_store_gpu_command_XXXXXX";
  const int fd = ::mkstemp(log_template);
  if (fd < 0) throw std::runtime_error(std::string("mkstemp: ") + std::strerror(errno));
  ::close(fd);
  CommandResult result;
  try {
    std::vector<std::string> command = arguments;
    if (!command.front().empty() && command.front().find('/') == std::string::npos) {
      // posix_spawn needs a path; resolve a bare name through PATH like a shell.
      command.insert(command.begin(), {"/usr/bin/env"});
    }
    result.exit_code = wait_for(spawn(command, log_template));
  } catch (...) {
    std::filesystem::remove(log_template);
    throw;
  }
  result.output = read_text(log_template);
  std::filesystem::remove(log_template);
  return result;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  write_bytes(path, std::string(bytes.begin(), bytes.end()));
}

std::string tail(const std::string& text, int lines) {
  std::size_t position = text.size();
  while (position > 0 && (text[position - 1] == '\n')) --position;
  const std::size_t end = position;
  for (int seen = 0; position > 0; --position) {
    if (text[position - 1] == '\n' && ++seen == lines) break;
  }
  return text.substr(position, end - position);
}

}  // namespace coop::gpu_test
