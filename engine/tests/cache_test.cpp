#include "coop/cache.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "coop/digest.hpp"
#include "coop/error.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr std::size_t kChecksumSize = 64;

// Every byte value, newlines and NULs included, so the payload proves the format is binary-safe.
CachedCompile sample(std::size_t size = 4096, char salt = 0) {
  CachedCompile value;
  for (std::size_t i = 0; i < size; ++i) value.ltoir.push_back(static_cast<char>(i * 7 + salt));
  value.layouts = {{4640, 16}, {0, 0}, {24, 8}};
  return value;
}

std::string key_for(const std::string& source) { return cache_key(source, {"-arch=sm_90"}, "sm_90", "toolkit"); }

DiskCache disk_cache(const TempDir& dir, bool enabled = true) {
  return DiskCache(CacheConfig{enabled, (dir.path() / "cache").string()});
}

// Sets or unsets one environment variable for a scope, then restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  std::string name_;
  std::optional<std::string> old_;
};

TEST(CacheKey, SameInputsSameKey) {
  EXPECT_EQ(cache_key("src", {"-a", "-b"}, "sm_90", "tk"), cache_key("src", {"-a", "-b"}, "sm_90", "tk"));
  EXPECT_EQ(cache_key("src", {}, "sm_90", "tk").size(), 64u);
}

TEST(CacheKey, EveryInputChangesTheKey) {
  const std::string base = cache_key("src", {"-a", "-b"}, "sm_90", "tk");
  EXPECT_NE(base, cache_key("src ", {"-a", "-b"}, "sm_90", "tk"));
  EXPECT_NE(base, cache_key("src", {"-a", "-c"}, "sm_90", "tk"));
  EXPECT_NE(base, cache_key("src", {"-a"}, "sm_90", "tk"));
  EXPECT_NE(base, cache_key("src", {"-b", "-a"}, "sm_90", "tk"));
  EXPECT_NE(base, cache_key("src", {"-a", "-b"}, "sm_80", "tk"));
  EXPECT_NE(base, cache_key("src", {"-a", "-b"}, "sm_90", "tk2"));
}

TEST(CacheKey, FieldsDoNotRunTogether) {
  EXPECT_NE(cache_key("s", {"-a"}, "sm_90", "tk"), cache_key("s", {"-a", "sm_90"}, "tk", ""));
  EXPECT_NE(cache_key("s", {}, "ab", "c"), cache_key("s", {}, "a", "bc"));
}

TEST(DiskCache, RoundTrip) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("round trip");
  cache.store(key, sample());
  EXPECT_EQ(cache.load(key), sample());
  EXPECT_TRUE(fs::exists(cache.entry_path(key)));
  EXPECT_EQ(fs::path(cache.entry_path(key)).parent_path().filename(), key.substr(0, 2));
}

TEST(DiskCache, EmptyCompileRoundTrips) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("empty");
  cache.store(key, CachedCompile{});
  EXPECT_EQ(cache.load(key), CachedCompile{});
}

TEST(DiskCache, StoreReplacesEntry) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("replace");
  cache.store(key, sample(100));
  cache.store(key, sample(50, 3));
  EXPECT_EQ(cache.load(key), sample(50, 3));
}

TEST(DiskCache, MissOnAbsentEntry) {
  TempDir dir;
  EXPECT_EQ(disk_cache(dir).load(key_for("absent")), std::nullopt);
}

TEST(DiskCache, RejectsMalformedKey) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  for (const std::string& key : std::vector<std::string>{"", "../escape", std::string(64, 'A'), std::string(63, 'a')}) {
    try {
      cache.load(key);
      ADD_FAILURE() << "accepted key '" << key << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    }
  }
}

TEST(DiskCache, RejectsRelativeDirectoryWhenEnabled) {
  EXPECT_THROW(DiskCache(CacheConfig{true, "relative/dir"}), Error);
  EXPECT_THROW(DiskCache(CacheConfig{true, ""}), Error);
  EXPECT_NO_THROW(DiskCache(CacheConfig{false, ""}));
}

// Replaces the trailing checksum with a correct one, so a case reaches the checks behind it.
void reseal(std::vector<char>& bytes) {
  bytes.resize(bytes.size() - kChecksumSize);
  const std::string checksum = sha256_hex(std::string_view(bytes.data(), bytes.size()));
  bytes.insert(bytes.end(), checksum.begin(), checksum.end());
}

void replace_text(std::vector<char>& bytes, const std::string& from, const std::string& to) {
  std::string text(bytes.begin(), bytes.end());
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  bytes.assign(text.begin(), text.end());
}

struct Damage {
  std::string name;
  std::function<void(std::vector<char>&)> apply;
};

void PrintTo(const Damage& damage, std::ostream* out) { *out << damage.name; }

Damage resealed_edit(std::string name, std::string from, std::string to) {
  return {std::move(name), [from, to](std::vector<char>& bytes) {
            replace_text(bytes, from, to);
            reseal(bytes);
          }};
}

// Each case damages a stored entry; the load must miss, and a fresh store must heal it.
class Corruption : public ::testing::TestWithParam<Damage> {};

TEST_P(Corruption, ReadsAsMissAndIsReplaced) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("corrupt");
  cache.store(key, sample());
  std::vector<char> bytes = testing::read_bytes(cache.entry_path(key));
  GetParam().apply(bytes);
  testing::write_bytes(cache.entry_path(key), bytes);
  EXPECT_EQ(cache.load(key), std::nullopt);
  cache.store(key, sample());
  EXPECT_EQ(cache.load(key), sample());
}

const std::string kLayoutsArray =
    R"("layouts":[{"alignment":16,"bytes":4640},{"alignment":0,"bytes":0},{"alignment":8,"bytes":24}])";
const std::string kLayoutsObject = R"("layouts":{"a":{"alignment":16,"bytes":4640},)"
                                   R"("b":{"alignment":0,"bytes":0},"c":{"alignment":8,"bytes":24}})";

INSTANTIATE_TEST_SUITE_P(
    DiskCache, Corruption,
    ::testing::Values(Damage{"TruncatedToHalf", [](std::vector<char>& bytes) { bytes.resize(bytes.size() / 2); }},
                      Damage{"LastByteLost", [](std::vector<char>& bytes) { bytes.pop_back(); }},
                      Damage{"Empty", [](std::vector<char>& bytes) { bytes.clear(); }},
                      Damage{"LtoirByteFlipped",
                             [](std::vector<char>& bytes) { bytes[bytes.size() - kChecksumSize - 100] ^= 1; }},
                      Damage{"HeaderByteFlipped", [](std::vector<char>& bytes) { bytes[30] ^= 1; }},
                      Damage{"ChecksumByteFlipped", [](std::vector<char>& bytes) { bytes.back() ^= 1; }},
                      Damage{"Garbage", [](std::vector<char>& bytes) { bytes.assign(5000, '\x5a'); }},
                      resealed_edit("OtherFormatVersion", "coop-cache-entry 1", "coop-cache-entry 0"),
                      resealed_edit("SizeMismatch", R"("ltoir_size":4096)", R"("ltoir_size":4095)"),
                      resealed_edit("JsonParseError", R"("layouts":[)", R"("layouts":{)"),
                      resealed_edit("JsonWrongType", R"("bytes":4640)", R"("bytes":"x")"),
                      resealed_edit("LayoutsNotAnArray", kLayoutsArray, kLayoutsObject),
                      resealed_edit("HeaderLineUnended", "}\n", "}")),
    [](const ::testing::TestParamInfo<Damage>& info) { return info.param.name; });

TEST(DiskCache, EntryUnderAnotherKeyIsAMiss) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string stored = key_for("one");
  const std::string other = key_for("two");
  cache.store(stored, sample());
  fs::create_directories(fs::path(cache.entry_path(other)).parent_path());
  fs::copy_file(cache.entry_path(stored), cache.entry_path(other));
  EXPECT_EQ(cache.load(other), std::nullopt);
}

TEST(DiskCache, DisabledCacheNeitherLoadsNorStores) {
  TempDir dir;
  const std::string key = key_for("disabled");
  disk_cache(dir).store(key, sample());
  const DiskCache disabled = disk_cache(dir, false);
  EXPECT_EQ(disabled.load(key), std::nullopt);
  disabled.store(key_for("not stored"), sample());
  EXPECT_FALSE(fs::exists(disabled.entry_path(key_for("not stored"))));
}

TEST(DiskCache, StoreFailureIsACacheErrorNamingThePath) {
  TempDir dir;
  testing::write_text(dir.path() / "file", "not a directory");
  const DiskCache cache(CacheConfig{true, (dir.path() / "file").string()});
  try {
    cache.store(key_for("unwritable"), sample());
    FAIL() << "store into a path under a regular file succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cache);
    EXPECT_NE(std::string(error.what()).find((dir.path() / "file").string()), std::string::npos) << error.what();
  }
  EXPECT_EQ(cache.load(key_for("unwritable")), std::nullopt);
}

TEST(DiskCache, StatsAndClearCountOnlyEntries) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  std::size_t bytes = 0;
  for (const std::string source : {"a", "b", "c"}) {
    cache.store(key_for(source), sample(1000));
    bytes += fs::file_size(cache.entry_path(key_for(source)));
  }
  const fs::path shard = fs::path(cache.entry_path(key_for("a"))).parent_path();
  const fs::path stray = shard / (key_for("a") + ".123.456.tmp");
  const fs::path unrelated = shard / "notes.txt";
  testing::write_text(stray, "half written");
  testing::write_text(unrelated, "keep me");

  const CacheStats stats = cache.stats();
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.bytes, bytes);
  EXPECT_EQ(stats.directory, cache.config().directory);
  EXPECT_TRUE(stats.enabled);

  EXPECT_EQ(cache.clear(), 3u);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_FALSE(fs::exists(stray));
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_EQ(cache.load(key_for("a")), std::nullopt);
  EXPECT_EQ(cache.clear(), 0u);
}

TEST(DiskCache, StatsOfMissingDirectoryAreEmpty) {
  TempDir dir;
  const CacheStats stats = disk_cache(dir).stats();
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.bytes, 0u);
}

TEST(CacheConfig, EnableVariable) {
  const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
  for (const char* off : {"0", "false", "FALSE", "No", "off", "OFF"}) {
    const ScopedEnv env("CUDA_COOP_ENABLE_CACHE", off);
    EXPECT_FALSE(CacheConfig::from_environment().enabled) << off;
  }
  for (const char* on : {"1", "true", "yes", "on", ""}) {
    const ScopedEnv env("CUDA_COOP_ENABLE_CACHE", on);
    EXPECT_TRUE(CacheConfig::from_environment().enabled) << on;
  }
  const ScopedEnv unset("CUDA_COOP_ENABLE_CACHE", std::nullopt);
  EXPECT_TRUE(CacheConfig::from_environment().enabled);
}

TEST(CacheConfig, XdgCacheHomeWhenAbsolute) {
  const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
  EXPECT_EQ(CacheConfig::from_environment().directory, "/tmp/xdg/cccl/coop");
}

TEST(CacheConfig, UnsetEmptyOrRelativeXdgFallsBackToHome) {
  const ScopedEnv home("HOME", "/tmp/home");
  const ScopedEnv enable("CUDA_COOP_ENABLE_CACHE", std::nullopt);
  for (const std::optional<std::string>& value :
       std::vector<std::optional<std::string>>{std::nullopt, "", "relative/cache"}) {
    const ScopedEnv xdg("XDG_CACHE_HOME", value);
    const CacheConfig config = CacheConfig::from_environment();
    EXPECT_EQ(config.directory, "/tmp/home/.cache/cccl/coop") << value.value_or("<unset>");
    EXPECT_TRUE(config.enabled);
  }
}

TEST(MemoryCache, RoundTripAndMiss) {
  MemoryCache cache;
  EXPECT_EQ(cache.load("k"), std::nullopt);
  cache.store("k", sample(10));
  cache.store("k", sample(20));
  EXPECT_EQ(cache.load("k"), sample(20));
}

TEST(MemoryCache, ConcurrentThreads) {
  MemoryCache cache;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 200; ++i) {
        cache.store(std::to_string(i % 10), sample(64, static_cast<char>(i % 10)));
        const auto value = cache.load(std::to_string((i + t) % 10));
        if (value) {
          EXPECT_EQ(*value, sample(64, static_cast<char>((i + t) % 10)));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cache.load("3"), sample(64, 3));
}

// Runs `body` in a forked child; the child's exit status carries the verdict. _Exit skips
// the parent's atexit handlers and gtest teardown, which belong to the parent only.
pid_t spawn(const std::function<bool()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
    }
    std::_Exit(ok ? 0 : 1);
  }
  return pid;
}

bool exited_cleanly(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Writers store one key again and again while readers load it. A reader must only ever see
// the complete value, and once it has seen the entry it must never miss it again: rename()
// replaces the file in one step.
TEST(DiskCache, ProcessesStoringAndLoadingOneKey) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("concurrent");
  const CachedCompile value = sample(64 * 1024);
  const fs::path stop = dir.path() / "stop";

  std::vector<pid_t> writers;
  std::vector<pid_t> readers;
  for (int i = 0; i < 2; ++i) {
    readers.push_back(spawn([&] {
      bool seen = false;
      while (!fs::exists(stop)) {
        const auto loaded = cache.load(key);
        if (loaded ? *loaded != value : seen) return false;
        seen = seen || loaded.has_value();
      }
      return cache.load(key) == value;
    }));
  }
  for (int i = 0; i < 4; ++i) {
    writers.push_back(spawn([&] {
      for (int n = 0; n < 200; ++n) cache.store(key, value);
      return true;
    }));
  }
  for (pid_t writer : writers) EXPECT_TRUE(exited_cleanly(writer)) << "writer " << writer;
  testing::write_text(stop, "");
  for (pid_t reader : readers) EXPECT_TRUE(exited_cleanly(reader)) << "reader " << reader;

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(cache.entry_path(key)).parent_path())) {
    files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], fs::path(cache.entry_path(key)));
  EXPECT_EQ(cache.load(key), value);
  EXPECT_EQ(cache.stats().entries, 1u);
}

}  // namespace
}  // namespace coop
