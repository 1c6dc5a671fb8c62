// cache: an in-process memo and a persistent disk cache of compiled bundles.
// Entries are written atomically (temp file + rename) and checksummed; a
// truncated or corrupted entry reads as a miss and is replaced.
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

// Key = digest of (engine version, emitted source, compiler options, arch,
// toolkit identity). Runtime operand values never reach it: they are not in the source.
std::string cache_key(const std::string& source, const std::vector<std::string>& options, const std::string& arch,
                      const std::string& toolkit_identity);

// Writes `bytes` to `target` through a temp file renamed into place, so no reader ever
// sees half a file; creates the directory. Throws coop::Error(Cache) naming the path.
void write_atomically(const std::filesystem::path& target, std::string_view bytes);

class DiskCache {
 public:
  explicit DiskCache(CacheConfig config);

  std::optional<CachedCompile> load(const std::string& key) const;  // miss on any defect
  void store(const std::string& key, const CachedCompile& value) const;
  CacheStats stats() const;
  std::size_t clear() const;  // entries removed
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
