// Disk entry layout, one file per key at <directory>/<key[0:2]>/<key>.entry:
//
//   coop-cache-entry 3\n                         magic and format version
//   {"key":...,"layouts":[...],"ltoir_size":N}\n  JSON header on one line
//   <N bytes of LTO-IR>
//   <64 hex digits>                               HMAC-SHA-256 of everything above
//
// Trust: an entry is code linked into the user's kernels, so it must prove its writer. The
// MAC is keyed with <directory>/entry-key, 32 random bytes made on first use and private to
// the user (0600): a checksum anyone can recompute would not tell the user's entry from one
// planted by whoever can write the directory. The root, each shard, each entry and the key
// must belong to the user and be writable by no one else (as ssh and ccache require); what
// fails is refused with one warning and costs a compile, and nothing is written into a
// directory that is refused. After the MAC, the entry's payload must be LTO-IR and its
// layouts ones a compile can give: a MAC proves the writer, not that the writer had no bug.
//
// Writers fill a uniquely named temp file beside the entry, fsync it and rename() it over
// the entry, so readers see the old entry or the new one, never a mix, and concurrent
// writers of one key leave one complete entry. A defective entry reads as a miss with one
// warning; the next store replaces it. The directory itself is not fsynced: losing a
// rename in a crash costs one recompile, not correctness.
//
// The root, shards and entries are reached through directory descriptors (openat with
// O_NOFOLLOW), so a symbolic link planted at any of them is refused rather than followed,
// and nothing swapped in between a check and its use can redirect a read or a write.
#include "coop/cache.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>
#include <utility>

#include "coop/digest.hpp"
#include "coop/emit.hpp"
#include "coop/error.hpp"
#include "coop/warning.hpp"
#include "environment.hpp"
#include "files.hpp"

namespace coop {

namespace fs = std::filesystem;

namespace {

// Bump the version on any change of the layout above: old entries then read as silent misses.
constexpr std::string_view kMagic = "coop-cache-entry 3\n";
constexpr std::string_view kAnyVersion = "coop-cache-entry ";
constexpr std::size_t kKeySize = 64;
constexpr std::size_t kMacSize = 64;
constexpr std::string_view kSecretName = "entry-key";
constexpr std::size_t kSecretSize = 32;
constexpr std::string_view kNoteMagic = "coop-cache-note 1\n";
constexpr std::size_t kMaxNoteBytes = std::size_t{1} << 16;
// Far above any bundle's LTO-IR; what is larger is not an entry and is never read into memory.
constexpr std::size_t kMaxEntryBytes = std::size_t{256} << 20;
constexpr mode_t kEntryMode = 0600;

bool is_absolute(const std::string& path) { return !path.empty() && fs::path(path).is_absolute(); }

std::string home_directory() {
  if (std::string home = env::text("HOME"); is_absolute(home)) return home;
  const passwd* user = ::getpwuid(::getuid());
  if (user != nullptr && user->pw_dir != nullptr && is_absolute(user->pw_dir)) return user->pw_dir;
  return "";
}

bool is_lower_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_key(std::string_view text) { return text.size() == kKeySize && is_lower_hex(text); }

std::string encode(const std::string& key, const CachedCompile& value, std::string_view secret) {
  nlohmann::json layouts = nlohmann::json::array();
  for (const Layout& layout : value.layouts) {
    layouts.push_back({{"bytes", layout.bytes}, {"alignment", layout.alignment}});
  }
  const nlohmann::json header = {{"key", key}, {"layouts", layouts}, {"ltoir_size", value.ltoir.size()}};
  std::string text(kMagic);
  text += header.dump();  // compact dump escapes newlines, so the header stays on one line
  text += '\n';
  text.append(value.ltoir.begin(), value.ltoir.end());
  text += hmac_sha256_hex(secret, text);
  return text;
}

// What is wrong with an entry, completing "'<entry>' ...".
struct Defect {
  std::string what;
};

bool is_power_of_two(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

// A compile gives {0, 0} for a probe it skipped, and otherwise a size that is a whole
// number of a power-of-two alignment (sizeof is a multiple of alignof).
bool is_possible(const Layout& layout) {
  if (layout.bytes == 0 && layout.alignment == 0) return true;
  return layout.bytes != 0 && is_power_of_two(layout.alignment) && layout.bytes % layout.alignment == 0;
}

// nlohmann converts -16 to 2^64 - 16 without a word; a count in an entry is written unsigned.
std::size_t count_at(const nlohmann::json& object, const char* name) {
  const nlohmann::json& value = object.at(name);
  if (!value.is_number_unsigned()) throw Defect{"has a header whose '" + std::string(name) + "' is " + value.dump()};
  return value.get<std::size_t>();
}

CachedCompile decode_checked(const nlohmann::json& header, std::string_view ltoir, const std::string& key) {
  if (header.at("key").get<std::string>() != key) throw Defect{"holds the entry of another key"};
  if (const std::size_t size = count_at(header, "ltoir_size"); size != ltoir.size()) {
    throw Defect{"says it holds " + std::to_string(size) + " bytes of LTO-IR but holds " +
                 std::to_string(ltoir.size())};
  }
  if (const std::string kind = not_ltoir(ltoir); !kind.empty()) throw Defect{"holds " + kind + ", not LTO-IR"};
  const nlohmann::json& layouts = header.at("layouts");
  if (!layouts.is_array()) throw Defect{"has a header whose layouts are not a list"};
  CachedCompile value;
  value.ltoir.assign(ltoir.begin(), ltoir.end());
  for (const nlohmann::json& entry : layouts) {
    const Layout layout{count_at(entry, "bytes"), count_at(entry, "alignment")};
    if (!is_possible(layout)) {
      throw Defect{"holds a scratch layout of " + std::to_string(layout.bytes) + " bytes aligned to " +
                   std::to_string(layout.alignment) + ", which no compile gives"};
    }
    value.layouts.push_back(layout);
  }
  return value;
}

// The entry, or nullopt for another format version's (replaced without a word, as an
// upgrade leaves many); throws Defect for anything else that is not a valid entry.
std::optional<CachedCompile> decode(std::string_view text, const std::string& key,
                                    const std::optional<std::string>& secret, const fs::path& secret_path) {
  if (!text.starts_with(kMagic)) {
    if (text.starts_with(kAnyVersion) && text.find('\n') != std::string_view::npos) return std::nullopt;
    throw Defect{"is not a cache entry (it does not start with 'coop-cache-entry')"};
  }
  if (!secret) throw Defect{"cannot be verified: the cache's key '" + secret_path.string() + "' is missing"};
  if (text.size() < kMagic.size() + kMacSize) throw Defect{"is truncated"};
  const std::string_view body = text.substr(0, text.size() - kMacSize);
  if (hmac_sha256_hex(*secret, body) != text.substr(body.size())) {
    throw Defect{"does not carry a MAC made with this cache's key: it is damaged, or it was not written by you"};
  }
  const std::size_t header_end = body.find('\n', kMagic.size());
  if (header_end == std::string_view::npos) throw Defect{"has no end to its header"};
  try {
    const auto header = nlohmann::json::parse(body.substr(kMagic.size(), header_end - kMagic.size()));
    return decode_checked(header, body.substr(header_end + 1), key);
  } catch (const nlohmann::json::exception& error) {
    throw Defect{"has a malformed header (" + std::string(error.what()) + ")"};
  }
}

// Keyed by the path at fault: a load and the store after it that meet the same defect (a
// directory where the entry belongs) warn once between them, and each bad path warns once.
void warn_about(const files::Fault& fault, const std::string& consequence) {
  warn_once("cache:" + fault.path.string(), "provider cache: " + fault.message + "; " + consequence);
}

// The cache directory, checked: nullopt (after a warning) when it cannot be used, or
// silently when it does not exist and `create` is false (nothing was cached yet).
std::optional<files::Descriptor> open_root(const fs::path& root, bool create) {
  try {
    if (create) files::make_private_directories(root);
    files::Descriptor directory = files::open_directory_unlinked(root);
    files::require_private(directory, root);
    return directory;
  } catch (const files::Fault& fault) {
    if (!create && fault.error == ENOENT) return std::nullopt;
    warn_about(fault,
               "compiling without the disk cache (set XDG_CACHE_HOME to a directory of your own, or "
               "CUDA_COOP_ENABLE_CACHE=0)");
    return std::nullopt;
  }
}

// The key entries are signed with; made on first use when `create`: every process racing
// to make it ends up with the first one's bytes. nullopt when there is none yet.
std::optional<std::string> cache_secret(const files::Descriptor& root, const fs::path& root_path, bool create) {
  const std::string name(kSecretName);
  if (auto secret = files::read_secret_file(root, root_path, name, kSecretSize)) return secret;
  if (!create) return std::nullopt;
  files::write_once(root, root_path, name, files::random_bytes(root_path / name, kSecretSize), kEntryMode);
  if (auto secret = files::read_secret_file(root, root_path, name, kSecretSize)) return secret;
  throw files::Fault::os(root_path / name, "read", ENOENT);
}

struct StoredEntry {
  std::string text;
  std::optional<std::string> secret;  // none when the cache has no key (yet)
  fs::path secret_path;
};

std::optional<StoredEntry> read_entry(const fs::path& root, const std::string& key) {
  const std::optional<files::Descriptor> directory = open_root(root, false);
  if (!directory) return std::nullopt;
  const fs::path shard_path = root / key.substr(0, 2);
  try {
    const files::Descriptor shard = files::open_subdirectory(*directory, root, key.substr(0, 2), false);
    std::optional<std::string> text = files::read_regular_file(shard, shard_path, key + ".entry", kMaxEntryBytes);
    if (!text) return std::nullopt;
    return StoredEntry{std::move(*text), cache_secret(*directory, root, false), root / kSecretName};
  } catch (const files::Fault& fault) {
    if (fault.error != ENOENT) warn_about(fault, "compiling instead of loading from it");
    return std::nullopt;
  }
}

void write_entry(const fs::path& root, const std::string& key, const CachedCompile& value) {
  const std::optional<files::Descriptor> directory = open_root(root, true);
  if (!directory) return;
  const fs::path shard_path = root / key.substr(0, 2);
  try {
    const std::string secret = *cache_secret(*directory, root, true);
    const files::Descriptor shard = files::open_subdirectory(*directory, root, key.substr(0, 2), true);
    files::write_atomically(shard, shard_path, key + ".entry", encode(key, value, secret), kEntryMode);
  } catch (const files::Fault& fault) {
    warn_about(fault, "the compiled result is used but not cached");
  }
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

std::vector<fs::path> list_directory(const fs::path& directory, std::error_code& error) {
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    paths.push_back(it->path());
  }
  return paths;
}

bool is_real_directory(const fs::path& path) {
  std::error_code error;
  return fs::symlink_status(path, error).type() == fs::file_type::directory;
}

// Only <directory>/<two hex digits>/<key>... names are ours: a cache directory set by
// mistake to a shared place must never lose unrelated files to clear(). A shard that is a
// symbolic link is skipped: clear() must never remove files that live somewhere else.
template <typename Visit, typename Unlisted>
void for_each_cache_file(const fs::path& root, Visit visit, Unlisted unlisted) {
  std::error_code error;
  const std::vector<fs::path> shards = list_directory(root, error);
  if (error && error != std::errc::no_such_file_or_directory) unlisted(root, error);
  for (const fs::path& shard : shards) {
    const std::string name = shard.filename().string();
    if (name.size() != 2 || !is_lower_hex(name) || !is_real_directory(shard)) continue;
    const std::vector<fs::path> files = list_directory(shard, error);
    if (error) unlisted(shard, error);
    for (const fs::path& file : files) {
      if (const FileKind kind = classify(file); kind != FileKind::Other) visit(file, kind);
    }
  }
}

void require_note_name(const std::string& name) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!plain) {
    reject(ErrorKind::InvalidArgument, "DiskCache", "note name", "'" + name + "'",
           "lowercase letters, digits and '-', e.g. toolkit-headers-0123abcd");
  }
}

// open_root for a note, without a word and without creating it: a note only saves work, and
// whatever keeps it from the cache directory keeps the entries too, which say so.
std::optional<files::Descriptor> open_root_quietly(const fs::path& root) {
  try {
    files::Descriptor directory = files::open_directory_unlinked(root);
    files::require_private(directory, root);
    return directory;
  } catch (const files::Fault&) {
    return std::nullopt;
  }
}

}  // namespace

CacheConfig CacheConfig::from_environment() {
  CacheConfig config;
  config.enabled = env::flag("CUDA_COOP_ENABLE_CACHE", true);
  // As the spec says: an unset, empty or relative XDG_CACHE_HOME falls back to ~/.cache.
  if (const std::string xdg = env::text("XDG_CACHE_HOME"); is_absolute(xdg)) {
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
  entry_path(key);  // rejects a malformed key even when the cache is off
  if (!config_.enabled) return std::nullopt;
  const std::optional<StoredEntry> stored = read_entry(config_.directory, key);
  if (!stored) return std::nullopt;
  try {
    return decode(stored->text, key, stored->secret, stored->secret_path);
  } catch (const Defect& defect) {
    warn_about(files::Fault::refused(entry_path(key), defect.what), "compiling instead (the compile replaces it)");
    return std::nullopt;
  }
}

void write_atomically(const fs::path& target, std::string_view bytes) {
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  try {
    std::error_code error;
    fs::create_directories(parent, error);
    if (error && !fs::is_directory(parent)) throw files::Fault::os(parent, "create directory", error.value());
    // A file standing at `parent` is no error to create_directories: opening it says what is wrong.
    files::write_atomically(files::open_directory(parent), parent, target.filename().string(), bytes, std::nullopt);
  } catch (const files::Fault& fault) {
    throw Error(ErrorKind::Cache, fault.message);
  }
}

void DiskCache::store(const std::string& key, const CachedCompile& value) const {
  entry_path(key);
  if (!config_.enabled) return;
  write_entry(config_.directory, key, value);
}

std::optional<std::string> DiskCache::load_note(const std::string& name) const {
  require_note_name(name);
  if (!config_.enabled) return std::nullopt;
  const std::optional<files::Descriptor> directory = open_root_quietly(config_.directory);
  if (!directory) return std::nullopt;
  try {
    const std::optional<std::string> text =
        files::read_regular_file(*directory, config_.directory, name + ".note", kMaxNoteBytes);
    const std::optional<std::string> secret = cache_secret(*directory, config_.directory, false);
    if (!text || !secret || !text->starts_with(kNoteMagic) || text->size() < kNoteMagic.size() + kMacSize) {
      return std::nullopt;
    }
    const std::string_view body = std::string_view(*text).substr(0, text->size() - kMacSize);
    if (hmac_sha256_hex(*secret, body) != std::string_view(*text).substr(body.size())) return std::nullopt;
    return std::string(body.substr(kNoteMagic.size()));
  } catch (const files::Fault&) {
    return std::nullopt;
  }
}

bool DiskCache::store_note(const std::string& name, const std::string& text) const {
  require_note_name(name);
  if (!config_.enabled) return true;
  std::error_code error;
  if (!fs::exists(config_.directory, error)) return false;
  const std::optional<files::Descriptor> directory = open_root_quietly(config_.directory);
  if (!directory) return true;
  try {
    const std::string secret = *cache_secret(*directory, config_.directory, true);
    std::string note(kNoteMagic);
    note += text;
    note += hmac_sha256_hex(secret, note);
    files::write_atomically(*directory, config_.directory, name + ".note", note, kEntryMode);
  } catch (const files::Fault&) {  // NOLINT(bugprone-empty-catch): a note only saves work
  }
  return true;
}

// stats() and clear() look at the directory even when the cache is disabled, so
// `coop cache` can inspect and empty what earlier runs left.
CacheStats DiskCache::stats() const {
  CacheStats stats{.directory = config_.directory, .enabled = config_.enabled};
  if (config_.directory.empty()) return stats;
  const auto unlisted = [](const fs::path& path, std::error_code error) {
    throw Error(ErrorKind::Cache, "provider cache: cannot list '" + path.string() + "': " + error.message());
  };
  for_each_cache_file(
      config_.directory,
      [&](const fs::path& path, FileKind kind) {
        std::error_code error;  // an entry removed meanwhile is simply not counted
        if (kind != FileKind::Entry || fs::symlink_status(path, error).type() != fs::file_type::regular) return;
        const std::uintmax_t size = fs::file_size(path, error);
        if (error) return;
        ++stats.entries;
        stats.bytes += size;
      },
      unlisted);
  return stats;
}

// Removing a .tmp file under a concurrent store makes that store fail, which it reports as
// a warning; shard directories stay, since removing one could race with a store that has
// just created it.
CacheClearReport DiskCache::clear() const {
  CacheClearReport report;
  if (config_.directory.empty()) return report;
  const auto failed = [&](const fs::path& path, std::error_code error) {
    report.failures.push_back({path.string(), error.message()});
  };
  for_each_cache_file(
      config_.directory,
      [&](const fs::path& path, FileKind kind) {
        std::error_code error;
        const bool existed = fs::remove(path, error);
        if (error) return failed(path, error);
        if (existed && kind == FileKind::Entry) ++report.removed;
      },
      failed);
  return report;
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
