#include "files.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "process_signals.hpp"

namespace coop::files {
namespace {

namespace fs = std::filesystem;

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a regular file";
}

// `path` is not the `expected` kind of file ("directory", "regular file").
Fault wrong_kind(const fs::path& path, mode_t mode, const std::string& expected) {
  if (S_ISLNK(mode)) return Fault::refused(path, "is a symbolic link, which the cache never follows");
  return Fault::refused(path, "is " + kind_of(mode) + ", not a " + expected);
}

std::string user_name(uid_t uid) {
  const passwd* user = ::getpwuid(uid);
  return "uid " + std::to_string(uid) +
         (user != nullptr && user->pw_name != nullptr ? " (" + std::string(user->pw_name) + ")" : "");
}

// What `name` is inside `directory`, without following a symbolic link; nullopt when absent.
std::optional<struct stat> look(const Descriptor& directory, const fs::path& path, const std::string& name) {
  struct stat info {};
  if (::fstatat(directory.get(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) return info;
  if (errno == ENOENT) return std::nullopt;
  throw Fault::os(path, "inspect", errno);
}

// pid and 64 random bits keep writers apart across processes and threads; O_EXCL makes a
// collision an error rather than two writers sharing one file. getrandom(2), not
// std::random_device, whose libstdc++ (linked statically into the wheels) needs glibc 2.36.
std::string temp_name(const std::string& name) {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) {
    // No entropy yet (early boot): the clock and the thread still tell writers apart.
    bits = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           std::hash<std::thread::id>{}(std::this_thread::get_id());
  }
  return name + "." + std::to_string(::getpid()) + "." + std::to_string(bits) + ".tmp";
}

// A temp file that removes itself unless commit() renamed it into place.
class TempFile {
 public:
  TempFile(const Descriptor& directory, const fs::path& directory_path, const std::string& name,
           std::optional<mode_t> exact_mode)
      : directory_(directory.get()), name_(temp_name(name)), path_(directory_path / name_) {
    fd_ = ::openat(directory_, name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   exact_mode.value_or(0666));
    if (fd_ < 0) throw Fault::os(path_, "create temporary file", errno);
    // The umask can only take bits away, and a cache entry must be private whatever it is.
    if (exact_mode && ::fchmod(fd_, *exact_mode) != 0) throw Fault::os(path_, "set the mode of", errno);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlinkat(directory_, name_.c_str(), 0);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) throw Fault::os(path_, "write", written < 0 ? errno : EIO);
      bytes.remove_prefix(static_cast<std::size_t>(written));
    }
  }

  // fsync before rename: otherwise a crash could leave the entry's name on unwritten data.
  void commit(const std::string& target, const fs::path& target_path) {
    sync_and_close();
    if (::renameat(directory_, name_.c_str(), directory_, target.c_str()) != 0) {
      throw Fault::os(target_path, "rename into place", errno);
    }
    committed_ = true;
  }

  // Gives the file a second name unless `target` exists; the temp name goes with the object.
  void link_unless_present(const std::string& target, const fs::path& target_path) {
    sync_and_close();
    if (::linkat(directory_, name_.c_str(), directory_, target.c_str(), 0) != 0 && errno != EEXIST) {
      throw Fault::os(target_path, "link into place", errno);
    }
  }

 private:
  void sync_and_close() {
    if (::fsync(fd_) != 0) throw Fault::os(path_, "sync", errno);
    if (::close(std::exchange(fd_, -1)) != 0) throw Fault::os(path_, "close", errno);
  }

  int directory_;
  std::string name_;
  fs::path path_;
  int fd_ = -1;
  bool committed_ = false;
};

std::string read_all(const Descriptor& file, const fs::path& path, std::size_t size) {
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(file.get(), bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Fault::os(path, "read", errno);
    if (got == 0) break;  // shrank meanwhile: the checksum turns this into a miss
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

std::string octal(mode_t mode) {
  std::string digits;
  for (int shift = 9; shift >= 0; shift -= 3) digits.push_back(static_cast<char>('0' + ((mode >> shift) & 07)));
  return digits;
}

void require_private(const struct stat& info, const fs::path& path) {
  if (info.st_uid != ::geteuid()) {
    throw Fault::refused(path, "belongs to " + user_name(info.st_uid) + ", not to you (" + user_name(::geteuid()) +
                                   "); whoever can write it can put code into your kernels");
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw Fault::refused(path, "is writable by its group or by others (mode " + octal(info.st_mode & 07777) +
                                   "); whoever can write it can put code into your kernels");
  }
}

void require_regular(const struct stat& info, const fs::path& path, std::size_t limit) {
  if (!S_ISREG(info.st_mode)) throw wrong_kind(path, info.st_mode, "regular file");
  if (static_cast<std::uintmax_t>(info.st_size) > limit) {
    throw Fault::refused(path, "holds " + std::to_string(info.st_size) + " bytes, more than the " +
                                   std::to_string(limit) + " any entry may have");
  }
  require_private(info, path);
}

}  // namespace

Fault Fault::os(const fs::path& path, const std::string& verb, int error) {
  return {path, "cannot " + verb + " '" + path.string() + "': " + std::strerror(error), error};
}

Fault Fault::refused(const fs::path& path, const std::string& what) {
  return {path, "'" + path.native() + "' " + what, 0};
}

Descriptor::~Descriptor() {
  if (fd_ >= 0) ::close(fd_);
}

void make_private_directories(const fs::path& path) {
  std::vector<fs::path> missing;
  for (fs::path at = path; !at.empty(); at = at.parent_path()) {
    struct stat info {};
    if (::stat(at.c_str(), &info) == 0) break;
    if (errno != ENOENT) throw Fault::os(at, "reach", errno);
    missing.push_back(at);
    if (at == at.parent_path()) break;
  }
  for (auto at = missing.rbegin(); at != missing.rend(); ++at) {
    if (::mkdir(at->c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;  // another process made it first; open_directory checks what it is
      throw Fault::os(*at, "create directory", errno);
    }
    // mkdir's mode passes through the umask, which may take away the owner's own bits. Only
    // someone who can write the parent could swap the new directory before this chmod.
    if (::chmod(at->c_str(), 0700) != 0) throw Fault::os(*at, "make private", errno);
  }
}

Descriptor open_directory(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Fault::os(path, "open directory", errno);
  return Descriptor(fd);
}

Descriptor open_directory_unlinked(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return Descriptor(fd);
  const int error = errno;
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && !S_ISDIR(info.st_mode)) throw wrong_kind(path, info.st_mode, "directory");
  throw Fault::os(path, "open directory", error);
}

void require_private(const Descriptor& file, const fs::path& path) {
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw Fault::os(path, "inspect", errno);
  require_private(info, path);
}

Descriptor open_subdirectory(const Descriptor& parent, const fs::path& parent_path, const std::string& name,
                             bool create) {
  const fs::path path = parent_path / name;
  const bool created = create && ::mkdirat(parent.get(), name.c_str(), 0700) == 0;
  if (create && !created && errno != EEXIST) throw Fault::os(path, "create directory", errno);
  // Before opening: a umask of 0777 would leave the new directory unreadable to its owner.
  if (created && ::fchmodat(parent.get(), name.c_str(), 0700, 0) != 0) throw Fault::os(path, "make private", errno);
  const int fd = ::openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::optional<struct stat> info = look(parent, path, name);
    if (info && !S_ISDIR(info->st_mode)) throw wrong_kind(path, info->st_mode, "directory");
    throw Fault::os(path, "open directory", error);
  }
  Descriptor directory(fd);
  require_private(directory, path);
  return directory;
}

namespace {

// `name` inside `directory` checked by `require` before it is opened and again on what was
// opened, so a file swapped in between is checked too; nullopt when absent.
template <typename Require>
std::optional<std::string> read_checked(const Descriptor& directory, const fs::path& directory_path,
                                        const std::string& name, Require require) {
  const fs::path path = directory_path / name;
  const std::optional<struct stat> seen = look(directory, path, name);
  if (!seen) return std::nullopt;
  require(*seen, path);
  // O_NONBLOCK: should a FIFO be swapped in after the look above, opening it must not wait for a writer.
  const int fd = ::openat(directory.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0) throw Fault::os(path, "open", errno);
  const Descriptor file(fd);
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw Fault::os(path, "inspect", errno);
  require(info, path);
  return read_all(file, path, static_cast<std::size_t>(info.st_size));
}

}  // namespace

std::optional<std::string> read_regular_file(const Descriptor& directory, const fs::path& directory_path,
                                             const std::string& name, std::size_t limit) {
  return read_checked(directory, directory_path, name,
                      [limit](const struct stat& info, const fs::path& path) { require_regular(info, path, limit); });
}

std::optional<std::string> read_secret_file(const Descriptor& directory, const fs::path& directory_path,
                                            const std::string& name, std::size_t size) {
  return read_checked(directory, directory_path, name, [size](const struct stat& info, const fs::path& path) {
    if (!S_ISREG(info.st_mode)) throw wrong_kind(path, info.st_mode, "regular file");
    require_private(info, path);
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      throw Fault::refused(path, "is open to its group or to others (mode " + octal(info.st_mode & 07777) +
                                     "); whoever can read it can forge cache entries");
    }
    if (static_cast<std::uintmax_t>(info.st_size) != size) {
      throw Fault::refused(path, "holds " + std::to_string(info.st_size) + " bytes, not the " + std::to_string(size) +
                                     " of a cache key (remove it: the next compile makes a new one)");
    }
  });
}

std::string random_bytes(const fs::path& purpose, std::size_t size) {
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::getrandom(bytes.data() + done, size - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Fault::os(purpose, "draw random bytes for", errno);
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

void write_atomically(const Descriptor& directory, const fs::path& directory_path, const std::string& name,
                      std::string_view bytes, std::optional<mode_t> exact_mode) {
  const ProcessSignalsDeferred deferred;  // a Ctrl-C here leaves the whole file or none
  TempFile temp(directory, directory_path, name, exact_mode);
  temp.write(bytes);
  temp.commit(name, directory_path / name);
}

void write_once(const Descriptor& directory, const fs::path& directory_path, const std::string& name,
                std::string_view bytes, mode_t exact_mode) {
  TempFile temp(directory, directory_path, name, exact_mode);
  temp.write(bytes);
  temp.link_unless_present(name, directory_path / name);
}

}  // namespace coop::files
