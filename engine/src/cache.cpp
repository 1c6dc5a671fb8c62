// Disk entry layout, one file per key at <directory>/<key[0:2]>/<key>.entry:
//
//   coop-cache-entry 1\n                         magic and format version
//   {"key":...,"layouts":[...],"ltoir_size":N}\n  JSON header on one line
//   <N bytes of LTO-IR>
//   <64 hex digits>                               SHA-256 of everything above
//
// Writers fill a uniquely named temp file beside the entry, fsync it and rename() it over
// the entry, so readers see the old entry or the new one, never a mix, and concurrent
// writers of one key leave one complete entry. Readers treat any defect as a miss; the
// next store replaces the defective file. The directory itself is not fsynced: losing a
// rename in a crash costs one recompile, not correctness.
#include "coop/cache.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string_view>
#include <system_error>
#include <utility>

#include "coop/digest.hpp"
#include "coop/emit.hpp"
#include "coop/error.hpp"

namespace coop {

namespace fs = std::filesystem;

namespace {

// Bump the version on any change of the layout above: old entries then read as misses.
constexpr std::string_view kMagic = "coop-cache-entry 1\n";
constexpr std::size_t kKeySize = 64;
constexpr std::size_t kChecksumSize = 64;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

bool is_absolute(const std::string& path) { return !path.empty() && fs::path(path).is_absolute(); }

bool parse_enabled(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return value != "0" && value != "false" && value != "no" && value != "off";
}

std::string home_directory() {
  if (std::string home = environment("HOME"); is_absolute(home)) return home;
  const passwd* user = ::getpwuid(::getuid());
  if (user != nullptr && user->pw_dir != nullptr && is_absolute(user->pw_dir)) return user->pw_dir;
  return "";
}

bool is_lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_key(std::string_view text) { return text.size() == kKeySize && is_lower_hex(text); }

[[noreturn]] void fail(const std::string& what, const fs::path& path, std::error_code error) {
  throw Error(ErrorKind::Cache, "coop cache: cannot " + what + " '" + path.string() + "': " + error.message());
}

std::error_code last_error(int value = errno) { return {value, std::generic_category()}; }

std::string encode(const std::string& key, const CachedCompile& value) {
  nlohmann::json layouts = nlohmann::json::array();
  for (const Layout& layout : value.layouts) {
    layouts.push_back({{"bytes", layout.bytes}, {"alignment", layout.alignment}});
  }
  const nlohmann::json header = {{"key", key}, {"layouts", layouts}, {"ltoir_size", value.ltoir.size()}};
  std::string text(kMagic);
  text += header.dump();  // compact dump escapes newlines, so the header stays on one line
  text += '\n';
  text.append(value.ltoir.begin(), value.ltoir.end());
  text += sha256_hex(text);
  return text;
}

std::optional<CachedCompile> decode_checked(const nlohmann::json& header, std::string_view ltoir,
                                            const std::string& key) {
  if (header.at("key").get<std::string>() != key) return std::nullopt;
  if (header.at("ltoir_size").get<std::size_t>() != ltoir.size()) return std::nullopt;
  const nlohmann::json& layouts = header.at("layouts");
  if (!layouts.is_array()) return std::nullopt;
  CachedCompile value;
  value.ltoir.assign(ltoir.begin(), ltoir.end());
  for (const nlohmann::json& layout : layouts) {
    value.layouts.push_back({layout.at("bytes").get<std::size_t>(), layout.at("alignment").get<std::size_t>()});
  }
  return value;
}

std::optional<CachedCompile> decode(std::string_view text, const std::string& key) {
  if (text.size() < kMagic.size() + kChecksumSize || !text.starts_with(kMagic)) return std::nullopt;
  const std::string_view body = text.substr(0, text.size() - kChecksumSize);
  if (sha256_hex(body) != text.substr(body.size())) return std::nullopt;
  const std::size_t header_end = body.find('\n', kMagic.size());
  if (header_end == std::string_view::npos) return std::nullopt;
  try {
    const auto header = nlohmann::json::parse(body.substr(kMagic.size(), header_end - kMagic.size()));
    return decode_checked(header, body.substr(header_end + 1), key);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return text;
}

void ensure_directory(const fs::path& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  // Another process may create it at the same moment; all that matters is that it exists now.
  if (error && !fs::is_directory(directory)) fail("create directory", directory, error);
}

// pid and 64 random bits keep writers apart across processes and threads; O_EXCL makes a
// collision an error rather than two writers sharing one file.
std::string temp_name(const std::string& name) {
  std::random_device random;
  const std::uint64_t bits = (std::uint64_t{random()} << 32) ^ random();
  return name + "." + std::to_string(::getpid()) + "." + std::to_string(bits) + ".tmp";
}

// A temp file that removes itself unless commit() renamed it into place.
class TempFile {
 public:
  explicit TempFile(fs::path path)
      : path_(std::move(path)), fd_(::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) {
    if (fd_ < 0) fail("create temporary file", path_, last_error());
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) fail("write", path_, last_error(written < 0 ? errno : EIO));
      bytes.remove_prefix(static_cast<std::size_t>(written));
    }
  }

  // fsync before rename: otherwise a crash could leave the entry's name on unwritten data.
  void commit(const fs::path& target) {
    if (::fsync(fd_) != 0) fail("sync", path_, last_error());
    if (::close(std::exchange(fd_, -1)) != 0) fail("close", path_, last_error());
    if (::rename(path_.c_str(), target.c_str()) != 0) fail("rename into place", target, last_error());
    committed_ = true;
  }

 private:
  fs::path path_;
  int fd_;
  bool committed_ = false;
};

std::vector<fs::path> list_directory(const fs::path& directory) {
  std::vector<fs::path> paths;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    paths.push_back(it->path());
  }
  return paths;
}

enum class FileKind { Entry, Temp, Other };

FileKind classify(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name.size() < kKeySize || !is_key(std::string_view(name).substr(0, kKeySize))) return FileKind::Other;
  const std::string_view rest = std::string_view(name).substr(kKeySize);
  if (rest == ".entry") return FileKind::Entry;
  if (rest.starts_with('.') && rest.ends_with(".tmp")) return FileKind::Temp;
  return FileKind::Other;
}

// Only <directory>/<two hex digits>/<key>... names are ours: a cache directory set by
// mistake to a shared place must never lose unrelated files to clear().
template <typename Visit>
void for_each_cache_file(const fs::path& root, Visit visit) {
  for (const fs::path& shard : list_directory(root)) {
    const std::string name = shard.filename().string();
    std::error_code error;
    if (name.size() != 2 || !is_lower_hex(name) || !fs::is_directory(shard, error)) continue;
    for (const fs::path& file : list_directory(shard)) {
      if (const FileKind kind = classify(file); kind != FileKind::Other) visit(file, kind);
    }
  }
}

}  // namespace

CacheConfig CacheConfig::from_environment() {
  CacheConfig config;
  config.enabled = parse_enabled(environment("CUDA_COOP_ENABLE_CACHE"));
  // As the spec says: an unset, empty or relative XDG_CACHE_HOME falls back to ~/.cache.
  if (const std::string xdg = environment("XDG_CACHE_HOME"); is_absolute(xdg)) {
    config.directory = (fs::path(xdg) / "cccl" / "coop").string();
  } else if (const std::string home = home_directory(); !home.empty()) {
    config.directory = (fs::path(home) / ".cache" / "cccl" / "coop").string();
  } else {
    config.enabled = false;  // a relative directory would scatter entries by working directory
  }
  return config;
}

std::string cache_key(const std::string& source, const std::vector<std::string>& options, const std::string& arch,
                      const std::string& toolkit_identity) {
  Sha256 digest;
  // The option count keeps the option list's end unambiguous against the fields after it.
  digest.field(engine_version()).field(source).field(std::to_string(options.size()));
  for (const std::string& option : options) digest.field(option);
  return digest.field(arch).field(toolkit_identity).hex();
}

DiskCache::DiskCache(CacheConfig config) : config_(std::move(config)) {
  if (config_.enabled && !is_absolute(config_.directory)) {
    reject(ErrorKind::InvalidArgument, "DiskCache", "directory", "'" + config_.directory + "'",
           "an absolute path (or a disabled cache)");
  }
}

std::string DiskCache::entry_path(const std::string& key) const {
  if (!is_key(key)) {
    reject(ErrorKind::InvalidArgument, "DiskCache", "key", "'" + key + "'",
           "64 lowercase hex digits, as cache_key() returns");
  }
  return (fs::path(config_.directory) / key.substr(0, 2) / (key + ".entry")).string();
}

std::optional<CachedCompile> DiskCache::load(const std::string& key) const {
  if (!config_.enabled) return std::nullopt;
  const std::optional<std::string> text = read_file(entry_path(key));
  return text ? decode(*text, key) : std::nullopt;
}

// Throws coop::Error(Cache) naming the path and the OS error when the entry cannot be
// written (read-only or full disk, permissions). The engine reports that as a warning and
// keeps the compiled result: a cache that cannot store must never fail a compile.
void write_atomically(const fs::path& target, std::string_view bytes) {
  ensure_directory(target.parent_path());
  TempFile temp(target.parent_path() / temp_name(target.filename().string()));
  temp.write(bytes);
  temp.commit(target);
}

void DiskCache::store(const std::string& key, const CachedCompile& value) const {
  if (!config_.enabled) return;
  write_atomically(entry_path(key), encode(key, value));
}

// stats() and clear() look at the directory even when the cache is disabled, so
// `coop cache` can inspect and empty what earlier runs left.
CacheStats DiskCache::stats() const {
  CacheStats stats{.directory = config_.directory, .enabled = config_.enabled};
  if (config_.directory.empty()) return stats;
  for_each_cache_file(config_.directory, [&](const fs::path& path, FileKind kind) {
    if (kind != FileKind::Entry) return;
    std::error_code error;  // an entry removed meanwhile is simply not counted
    const std::uintmax_t size = fs::file_size(path, error);
    if (error) return;
    ++stats.entries;
    stats.bytes += size;
  });
  return stats;
}

// Removing a .tmp file under a concurrent store makes that store fail with a Cache error,
// which the engine reports as a warning; shard directories stay, since removing one could
// race with a store that has just created it.
std::size_t DiskCache::clear() const {
  std::size_t removed = 0;
  if (config_.directory.empty()) return removed;
  for_each_cache_file(config_.directory, [&](const fs::path& path, FileKind kind) {
    std::error_code error;
    const bool existed = fs::remove(path, error);
    if (error) fail("remove", path, error);
    if (existed && kind == FileKind::Entry) ++removed;
  });
  return removed;
}

std::optional<CachedCompile> MemoryCache::load(const std::string& key) const {
  const std::lock_guard lock(mutex_);
  const auto found = entries_.find(key);
  if (found == entries_.end()) return std::nullopt;
  return found->second;
}

void MemoryCache::store(const std::string& key, const CachedCompile& value) {
  const std::lock_guard lock(mutex_);
  entries_.insert_or_assign(key, value);
}

}  // namespace coop
