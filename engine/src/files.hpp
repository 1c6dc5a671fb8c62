// files: the file operations the disk cache and source dumps share. They work on
// directory descriptors (openat, O_NOFOLLOW), so a symbolic link planted inside a
// directory is refused rather than followed, and a path swapped between a check and
// its use cannot redirect a read or a write. Faults are data: every one names its path.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace coop::files {

// Thrown by everything here; callers decide whether it is a warning or an error.
struct Fault {
  std::filesystem::path path;
  std::string message;  // a sentence naming the path
  int error = 0;        // errno, or 0 when the fault is the file's kind, size or owner

  static Fault os(const std::filesystem::path& path, const std::string& verb, int error);
  static Fault refused(const std::filesystem::path& path, const std::string& what);
};

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor();
  Descriptor(Descriptor&& other) noexcept : fd_(other.release()) {}
  Descriptor& operator=(Descriptor&&) = delete;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Creates the missing directories of `path`, each 0700 whatever the umask.
void make_private_directories(const std::filesystem::path& path);

// Follows symbolic links: a directory the user points at through one is theirs to choose.
Descriptor open_directory(const std::filesystem::path& path);

// The directory at `path` itself, never through a symbolic link at its last component.
Descriptor open_directory_unlinked(const std::filesystem::path& path);

// Refuses a file or directory that is not the caller's, or that its group or others may
// write: whoever can write it can write what is read from it (ssh and ccache check the same).
void require_private(const Descriptor& file, const std::filesystem::path& path);

// `name` inside `parent`, never through a symbolic link; `create` makes it (0700) when missing.
// It must be private (require_private).
Descriptor open_subdirectory(const Descriptor& parent, const std::filesystem::path& parent_path,
                             const std::string& name, bool create);

// The bytes of the private regular file `name`, or nullopt when there is none. A symbolic
// link, a directory, a FIFO or a device is refused without being opened for reading, and so
// is a file larger than `limit` or one that is not private (require_private).
std::optional<std::string> read_regular_file(const Descriptor& directory, const std::filesystem::path& directory_path,
                                             const std::string& name, std::size_t limit);

// The bytes of `name`, a secret: a private regular file (require_private) that neither its
// group nor others may read, of exactly `size` bytes; nullopt when there is none.
std::optional<std::string> read_secret_file(const Descriptor& directory, const std::filesystem::path& directory_path,
                                            const std::string& name, std::size_t size);

// `size` bytes from the kernel's random source (getrandom), for keys.
std::string random_bytes(const std::filesystem::path& purpose, std::size_t size);

// Writes a uniquely named temp file in `directory`, fsyncs it and renames it over `name`.
// With `exact_mode` the file gets that mode whatever the umask; without, 0666 less the umask.
void write_atomically(const Descriptor& directory, const std::filesystem::path& directory_path, const std::string& name,
                      std::string_view bytes, std::optional<mode_t> exact_mode);

// Like write_atomically, but an existing `name` is kept: the first writer's bytes win (link(2)
// never replaces), so processes racing to create one file all end up reading the same bytes.
void write_once(const Descriptor& directory, const std::filesystem::path& directory_path, const std::string& name,
                std::string_view bytes, mode_t exact_mode);

}  // namespace coop::files
