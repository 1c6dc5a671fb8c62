// cache: an in-process memo and a persistent disk cache of compiled bundles.
// Entries are written atomically (temp file + rename) and signed; a truncated,
// corrupted or inconsistent entry reads as a miss with one warning, and is replaced. A
// disk cache that cannot be used costs a compile and one warning (coop::warn), never a
// failed call.
//
// Trust: an entry is code that goes into the user's kernels, so the cache is private.
// Directories it creates are 0700 and entries 0600 whatever the umask. The root, a shard
// or an entry that belongs to another user, that others may write, or that is a symbolic
// link is refused (nothing is written into a refused directory), and so is an entry whose
// HMAC was not made with the cache's private key or whose payload is not LTO-IR.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coop/compile.hpp"

namespace coop {

struct CacheConfig {
  bool enabled = true;    // CUDA_COOP_ENABLE_CACHE (0 turns the disk cache off)
  std::string directory;  // $XDG_CACHE_HOME/cccl/coop, fallback ~/.cache/cccl/coop

  static CacheConfig from_environment();
};

// What a cache entry holds: the compile's products, keyed by CacheKey.
struct CachedCompile {
  std::vector<char> ltoir;
  std::vector<Layout> layouts;
  friend bool operator==(const CachedCompile&, const CachedCompile&) = default;
};

struct CacheStats {
  std::size_t entries = 0;
  std::size_t bytes = 0;
  std::string directory;
  bool enabled = true;
};

struct CacheFailure {
  std::string path;
  std::string reason;  // the OS error, e.g. "Directory not empty"
};

struct CacheClearReport {
  std::size_t removed = 0;             // entries removed
  std::vector<CacheFailure> failures;  // what could not be removed (or listed); empty when all went
};

// Key = digest of (engine version, emitted source, compiler options, arch,
// toolkit identity). Runtime operand values never reach it: they are not in the source.
std::string cache_key(const std::string& source, const std::vector<std::string>& options, const std::string& arch,
                      const std::string& toolkit_identity);

// Writes `bytes` to `target` through a temp file renamed into place, so no reader ever
// sees half a file; creates the directory. The file's mode follows the umask (it is not
// a cache entry). Throws coop::Error(Cache) naming the path and the OS error.
void write_atomically(const std::filesystem::path& target, std::string_view bytes);

class DiskCache {
 public:
  explicit DiskCache(CacheConfig config);

  // A miss on any defect; one that a store will not repair (an entry that is not a regular
  // file, an unusable root) also warns, once per path.
  std::optional<CachedCompile> load(const std::string& key) const;
  // Never throws for the disk's faults (read-only, full, foreign, not a directory): it warns
  // once per path and stores nothing, since a cache that cannot store must not fail a compile.
  void store(const std::string& key, const CachedCompile& value) const;
  // A note: a few lines one process leaves for the next (the toolkit's header digest), signed
  // as entries are and kept at <directory>/<name>.note (`name`: lowercase letters, digits and
  // '-'). nullopt when there is none, the cache is off, or the note fails a check: a note only
  // saves work, so it is dropped without a word. store_note is best effort and silent, and
  // never creates the directory (the entries' store does, and warns when it cannot): false
  // when there is none yet, for the caller to try again once an entry has been stored.
  std::optional<std::string> load_note(const std::string& name) const;
  bool store_note(const std::string& name, const std::string& text) const;
  // Throws Error(Cache) when the directory exists but cannot be listed.
  CacheStats stats() const;
  // Removes every entry it can and reports the rest, so one stuck file never keeps the others.
  CacheClearReport clear() const;
  std::string entry_path(const std::string& key) const;
  const CacheConfig& config() const { return config_; }

 private:
  CacheConfig config_;
};

class MemoryCache {
 public:
  std::optional<CachedCompile> load(const std::string& key) const;
  void store(const std::string& key, const CachedCompile& value);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, CachedCompile> entries_;
};

}  // namespace coop
