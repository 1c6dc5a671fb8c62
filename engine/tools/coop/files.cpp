#include "files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "coop/error.hpp"

namespace coop::cli {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// errno's text, for a value that names what went wrong: "'x.cubin' (Permission denied)".
std::string because(const std::string& path, int error) { return quoted(path) + " (" + std::strerror(error) + ")"; }

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

}  // namespace

std::vector<char> read_input(const std::string& path, const std::string& command, const std::string& argument) {
  const std::string expected = "a readable, non-empty regular file";
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (path.empty()) reject(ErrorKind::InvalidArgument, command, argument, "''", expected);
  if (status.type() == fs::file_type::not_found) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (no such file)", expected);
  }
  if (error) reject(ErrorKind::InvalidArgument, command, argument, because(path, error.value()), expected);
  if (fs::is_directory(status)) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (a directory)", expected);
  }
  if (!fs::is_regular_file(status)) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (not a regular file)", expected);
  }
  // Checked before reading: a file of gigabytes took a minute to read, then ran out of memory.
  const auto size = fs::file_size(path, error);
  if (error) reject(ErrorKind::InvalidArgument, command, argument, because(path, error.value()), expected);
  if (size == 0) reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (empty)", expected);
  if (size > kMaxInputBytes) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (" + std::to_string(size) + " bytes)",
           "a file of at most " + std::to_string(kMaxInputBytes) + " bytes (2 GiB)");
  }
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) reject(ErrorKind::InvalidArgument, command, argument, because(path, errno), expected);
  std::vector<char> bytes(size);
  // A file that shrank since it was measured is read as it is now.
  bytes.resize(std::fread(bytes.data(), 1, bytes.size(), file.get()));
  if (std::ferror(file.get())) reject(ErrorKind::InvalidArgument, command, argument, because(path, errno), expected);
  if (bytes.empty()) reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (empty)", expected);
  return bytes;
}

void check_output(const std::string& path, const std::string& command, const std::string& argument) {
  if (path.empty()) reject(ErrorKind::InvalidArgument, command, argument, "''", "a file path");
  std::error_code error;
  if (fs::is_directory(path, error)) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path) + " (a directory)",
           "a file path, not a directory");
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, error)) {
    reject(ErrorKind::InvalidArgument, command, argument, quoted(path),
           "a path in an existing directory (there is no directory " + quoted(parent.string()) + ")");
  }
  // The file if it exists, else the directory that would hold it.
  const fs::path target = fs::exists(path, error) ? fs::path(path) : (parent.empty() ? fs::path(".") : parent);
  if (::access(target.c_str(), W_OK) != 0) {
    reject(ErrorKind::InvalidArgument, command, argument, because(path, errno), "a writable file path");
  }
}

bool same_file(const std::string& first, const std::string& second) {
  std::error_code error;
  if (fs::exists(first, error) && fs::exists(second, error)) return fs::equivalent(first, second, error);
  // Made absolute first: weakly_canonical leaves "a" relative but resolves "./a".
  return fs::weakly_canonical(fs::absolute(first, error), error) ==
         fs::weakly_canonical(fs::absolute(second, error), error);
}

void write_output(const std::string& path, std::string_view bytes, const std::string& command,
                  const std::string& argument) {
  const std::string expected = "a writable file path";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) reject(ErrorKind::InvalidArgument, command, argument, because(path, errno), expected);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int failure = written ? 0 : errno;
  if (std::fflush(file) != 0 && failure == 0) failure = errno;
  if (std::fclose(file) != 0 && failure == 0) failure = errno;
  if (!written && failure == 0) failure = EIO;
  if (failure != 0) reject(ErrorKind::InvalidArgument, command, argument, because(path, failure), expected);
}

}  // namespace coop::cli
