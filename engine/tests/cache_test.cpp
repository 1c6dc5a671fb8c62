#include "coop/cache.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
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

constexpr std::size_t kMacSize = 64;
const std::string kLtoirMagic("\xED\x43\x4E\x7F", 4);

// LTO-IR's magic, then every byte value, newlines and NULs included, so the payload proves
// the format is binary-safe.
CachedCompile sample(std::size_t size = 4096, char salt = 0) {
  CachedCompile value;
  value.ltoir.assign(kLtoirMagic.begin(), kLtoirMagic.end());
  for (std::size_t i = kLtoirMagic.size(); i < size; ++i) value.ltoir.push_back(static_cast<char>(i * 7 + salt));
  value.layouts = {{4640, 16}, {0, 0}, {24, 8}};
  return value;
}

// The key the cache signs its entries with, as a test that is the cache's user can read it.
std::string secret_of(const DiskCache& cache) {
  const std::vector<char> bytes = testing::read_bytes(fs::path(cache.config().directory) / "entry-key");
  return {bytes.begin(), bytes.end()};
}

std::string key_for(const std::string& source) { return cache_key(source, {"-arch=sm_90"}, "sm_90", "toolkit"); }

DiskCache disk_cache(const TempDir& dir, bool enabled = true) {
  return DiskCache(CacheConfig{enabled, (dir.path() / "cache").string()});
}

using testing::CapturedWarnings;
using testing::ScopedEnv;

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

TEST(DiskCache, SmallestCompileRoundTrips) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("smallest");
  const CachedCompile smallest{std::vector<char>(kLtoirMagic.begin(), kLtoirMagic.end()), {}};
  cache.store(key, smallest);
  EXPECT_EQ(cache.load(key), smallest);
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

// Replaces the trailing MAC with one made under `secret`, so a case reaches the checks behind it.
void reseal(std::vector<char>& bytes, const std::string& secret) {
  bytes.resize(bytes.size() - kMacSize);
  const std::string mac = hmac_sha256_hex(secret, std::string_view(bytes.data(), bytes.size()));
  bytes.insert(bytes.end(), mac.begin(), mac.end());
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
  std::function<void(std::vector<char>&, const std::string& secret)> apply;
  std::string warning;  // what the one warning says; "" for a miss without a word
};

void PrintTo(const Damage& damage, std::ostream* out) { *out << damage.name; }

Damage damage(std::string name, std::function<void(std::vector<char>&)> apply, std::string warning) {
  return {std::move(name), [apply](std::vector<char>& bytes, const std::string&) { apply(bytes); }, std::move(warning)};
}

// An edit whose MAC is made right again with the cache's own key: only the checks after the MAC can catch it.
Damage resealed_edit(std::string name, std::string from, std::string to, std::string warning) {
  return {std::move(name),
          [from, to](std::vector<char>& bytes, const std::string& secret) {
            replace_text(bytes, from, to);
            reseal(bytes, secret);
          },
          std::move(warning)};
}

// Each case damages a stored entry; the load must miss (warning as the case says), and a
// fresh store must heal it.
class Corruption : public ::testing::TestWithParam<Damage> {};

TEST_P(Corruption, ReadsAsMissAndIsReplaced) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("corrupt");
  cache.store(key, sample());
  std::vector<char> bytes = testing::read_bytes(cache.entry_path(key));
  GetParam().apply(bytes, secret_of(cache));
  testing::write_bytes(cache.entry_path(key), bytes);
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  if (GetParam().warning.empty()) {
    EXPECT_TRUE(warnings.texts().empty()) << warnings.joined();
  } else {
    ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
    const std::string text = warnings.texts()[0];
    EXPECT_NE(text.find("'" + cache.entry_path(key) + "' " + GetParam().warning), std::string::npos) << text;
    EXPECT_NE(text.find("compiling instead (the compile replaces it)"), std::string::npos) << text;
  }
  cache.store(key, sample());
  EXPECT_EQ(cache.load(key), sample());
}

const std::string kLayoutsArray =
    R"("layouts":[{"alignment":16,"bytes":4640},{"alignment":0,"bytes":0},{"alignment":8,"bytes":24}])";
const std::string kLayoutsObject = R"("layouts":{"a":{"alignment":16,"bytes":4640},)"
                                   R"("b":{"alignment":0,"bytes":0},"c":{"alignment":8,"bytes":24}})";
const std::string kNotOurs = "does not carry a MAC made with this cache's key";
const std::string kMalformed = "has a malformed header";

INSTANTIATE_TEST_SUITE_P(
    DiskCache, Corruption,
    ::testing::Values(
        damage(
            "TruncatedToHalf", [](std::vector<char>& bytes) { bytes.resize(bytes.size() / 2); }, kNotOurs),
        damage(
            "LastByteLost", [](std::vector<char>& bytes) { bytes.pop_back(); }, kNotOurs),
        damage(
            "Empty", [](std::vector<char>& bytes) { bytes.clear(); }, "is not a cache entry"),
        damage(
            "LtoirByteFlipped", [](std::vector<char>& bytes) { bytes[bytes.size() - kMacSize - 100] ^= 1; }, kNotOurs),
        damage(
            "HeaderByteFlipped", [](std::vector<char>& bytes) { bytes[30] ^= 1; }, kNotOurs),
        damage(
            "MacByteFlipped", [](std::vector<char>& bytes) { bytes.back() ^= 1; }, kNotOurs),
        damage(
            "Garbage", [](std::vector<char>& bytes) { bytes.assign(5000, '\x5a'); }, "is not a cache entry"),
        // What whoever can write the entry, but cannot read the key, can make: an unkeyed checksum.
        damage(
            "ChecksumInsteadOfMac",
            [](std::vector<char>& bytes) {
              bytes.resize(bytes.size() - kMacSize);
              const std::string checksum = sha256_hex(std::string_view(bytes.data(), bytes.size()));
              bytes.insert(bytes.end(), checksum.begin(), checksum.end());
            },
            kNotOurs),
        Damage{"SignedWithAnotherKey",
               [](std::vector<char>& bytes, const std::string&) { reseal(bytes, std::string(32, 'k')); }, kNotOurs},
        resealed_edit("OtherFormatVersion", "coop-cache-entry 3", "coop-cache-entry 2", ""),
        resealed_edit("SizeMismatch", R"("ltoir_size":4096)", R"("ltoir_size":4095)",
                      "says it holds 4095 bytes of LTO-IR but holds 4096"),
        resealed_edit("JsonParseError", R"("layouts":[)", R"("layouts":{)", kMalformed),
        resealed_edit("JsonWrongType", R"("bytes":4640)", R"("bytes":"x")", "has a header whose 'bytes' is \"x\""),
        resealed_edit("NegativeLayout", R"("bytes":4640)", R"("bytes":-16)", "has a header whose 'bytes' is -16"),
        resealed_edit("FractionalSize", R"("ltoir_size":4096)", R"("ltoir_size":4096.5)",
                      "has a header whose 'ltoir_size' is 4096.5"),
        resealed_edit("LayoutsNotAnArray", kLayoutsArray, kLayoutsObject, "has a header whose layouts are not a list"),
        resealed_edit("HeaderLineUnended", "}\n", "}", kMalformed),
        resealed_edit("PayloadIsAnElfBinary", kLtoirMagic,
                      "\x7F"
                      "ELF",
                      "holds an ELF binary, not LTO-IR"),
        resealed_edit("PayloadIsText", kLtoirMagic, "//  ", "holds PTX or other text, not LTO-IR"),
        resealed_edit("ScratchOfTwoToTheSixtyFourMinusOne", R"("bytes":4640)", R"("bytes":18446744073709551615)",
                      "holds a scratch layout of 18446744073709551615 bytes aligned to 16, which no compile gives"),
        resealed_edit("AlignmentNotAPowerOfTwo", R"("alignment":8,)", R"("alignment":12,)",
                      "holds a scratch layout of 24 bytes aligned to 12"),
        resealed_edit("BytesWithoutAlignment", R"("alignment":8,)", R"("alignment":0,)",
                      "holds a scratch layout of 24 bytes aligned to 0")),
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

TEST(DiskCacheNotes, RoundTripPrivateAndSigned) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  EXPECT_EQ(cache.load_note("toolkit-headers-1"), std::nullopt);
  EXPECT_FALSE(cache.store_note("toolkit-headers-1", "early")) << "a note must not create the cache directory";
  EXPECT_FALSE(fs::exists(dir.path() / "cache"));
  cache.store(key_for("first"), sample());  // the entries make the directory, warning when they cannot
  EXPECT_TRUE(cache.store_note("toolkit-headers-1", "stamp\n3.0.1\ndigest\n"));
  EXPECT_EQ(cache.load_note("toolkit-headers-1"), "stamp\n3.0.1\ndigest\n");
  const fs::path note = dir.path() / "cache" / "toolkit-headers-1.note";
  EXPECT_EQ(fs::status(note).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  std::string text = testing::read_text(note);
  text.replace(text.find("3.0.1"), 5, "9.9.9");  // an edit that keeps the MAC: no longer this cache's note
  testing::write_text(note, text);
  ::chmod(note.c_str(), 0600);
  EXPECT_EQ(cache.load_note("toolkit-headers-1"), std::nullopt);
  EXPECT_EQ(cache.stats().entries, 1u);  // a note is no entry
}

TEST(DiskCacheNotes, OffOrMisnamedNeitherLoadsNorStores) {
  TempDir dir;
  disk_cache(dir).store(key_for("first"), sample());
  ASSERT_TRUE(disk_cache(dir).store_note("kept", "text"));
  const DiskCache disabled = disk_cache(dir, false);
  EXPECT_EQ(disabled.load_note("kept"), std::nullopt);
  disabled.store_note("other", "text");
  EXPECT_FALSE(fs::exists(dir.path() / "cache" / "other.note"));
  EXPECT_THROW(disabled.load_note("../escape"), Error);
  EXPECT_THROW(disk_cache(dir).store_note("Upper", "text"), Error);
}

// Stands in for a root the user cannot enter (mode 000): the tests run as root, which mode
// bits do not stop, but a regular file at the root path fails the same calls the same way.
TEST(DiskCache, RootThatIsAFileWarnsOnceNamingThePath) {
  TempDir dir;
  testing::write_text(dir.path() / "file", "not a directory");
  const DiskCache cache(CacheConfig{true, (dir.path() / "file").string()});
  const CapturedWarnings warnings;
  EXPECT_NO_THROW(cache.store(key_for("unwritable"), sample()));
  EXPECT_EQ(cache.load(key_for("unwritable")), std::nullopt);
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_NE(warnings.joined().find("'" + (dir.path() / "file").string() + "'"), std::string::npos) << warnings.joined();
  EXPECT_NE(warnings.joined().find("is a regular file, not a directory"), std::string::npos) << warnings.joined();
  EXPECT_NE(warnings.joined().find("compiling without the disk cache"), std::string::npos) << warnings.joined();
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

  const CacheClearReport report = cache.clear();
  EXPECT_EQ(report.removed, 3u);
  EXPECT_TRUE(report.failures.empty());
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_FALSE(fs::exists(stray));
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_EQ(cache.load(key_for("a")), std::nullopt);
  EXPECT_EQ(cache.clear().removed, 0u);
}

TEST(DiskCache, StatsOfMissingDirectoryAreEmpty) {
  TempDir dir;
  const CacheStats stats = disk_cache(dir).stats();
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.bytes, 0u);
}

TEST(CacheConfig, EnableVariable) {
  const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
  for (const char* off : {"0", "false", "FALSE", "No", "off", "OFF", "", " off "}) {
    const ScopedEnv env("CUDA_COOP_ENABLE_CACHE", off);
    EXPECT_FALSE(CacheConfig::from_environment().enabled) << off;
  }
  for (const char* on : {"1", "true", "Yes", "ON", " 1"}) {
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

// ---- Faults of the disk. Each costs a miss (or a store skipped) and one warning naming the
// path, never an exception: a cache that cannot be used must not fail a compile.

std::string text_of(const CapturedWarnings& warnings) { return warnings.joined(); }

bool mentions(const CapturedWarnings& warnings, const std::string& fragment) {
  return warnings.joined().find(fragment) != std::string::npos;
}

// Like exited_cleanly, but a child still running after `limit` is killed and counts as a
// failure, so a read that blocks fails the test instead of hanging it.
bool exited_cleanly_within(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

fs::path shard_of(const DiskCache& cache, const std::string& key) {
  return fs::path(cache.entry_path(key)).parent_path();
}

TEST(DiskCacheFaults, DirectoryAtEntryPathIsAMissAndOneWarning) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("directory at entry");
  fs::create_directories(cache.entry_path(key));
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_NO_THROW(cache.store(key, sample()));
  EXPECT_EQ(cache.load(key), std::nullopt);
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "'" + cache.entry_path(key) + "' is a directory, not a regular file"))
      << text_of(warnings);
  EXPECT_TRUE(fs::is_directory(cache.entry_path(key)));
}

TEST(DiskCacheFaults, StoreOverADirectoryWarnsNamingTheEntry) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("store over directory");
  fs::create_directories(cache.entry_path(key));
  const CapturedWarnings warnings;
  EXPECT_NO_THROW(cache.store(key, sample()));
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "cannot rename into place '" + cache.entry_path(key) + "'")) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "the compiled result is used but not cached")) << text_of(warnings);
}

TEST(DiskCacheFaults, FifoAtEntryPathNeitherHangsNorHits) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("fifo");
  fs::create_directories(shard_of(cache, key));
  ASSERT_EQ(::mkfifo(cache.entry_path(key).c_str(), 0600), 0);
  const pid_t child = spawn([&] {
    const CapturedWarnings warnings;
    const bool missed = !cache.load(key).has_value();
    cache.store(key, sample());  // rename() replaces the FIFO with a real entry
    return missed && mentions(warnings, "is a FIFO, not a regular file") && cache.load(key) == sample();
  });
  EXPECT_TRUE(exited_cleanly_within(child, std::chrono::seconds(30)));
}

TEST(DiskCacheFaults, EntryLinkedToDevZeroIsRefusedUnread) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("dev zero");
  fs::create_directories(shard_of(cache, key));
  fs::create_symlink("/dev/zero", cache.entry_path(key));
  const pid_t child = spawn([&] {
    const CapturedWarnings warnings;
    const bool missed = !cache.load(key).has_value();
    return missed && mentions(warnings, "is a symbolic link, which the cache never follows");
  });
  EXPECT_TRUE(exited_cleanly_within(child, std::chrono::seconds(30)));
}

TEST(DiskCacheFaults, EntryLargerThanAnyBundleIsRefusedUnread) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("huge");
  fs::create_directories(shard_of(cache, key));
  testing::write_text(cache.entry_path(key), "");
  fs::resize_file(cache.entry_path(key), std::uintmax_t{300} << 20);  // sparse: costs no disk
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_TRUE(mentions(warnings, "holds 314572800 bytes, more than the")) << text_of(warnings);
}

// The link points at a valid entry for the same key: following it would be a hit.
TEST(DiskCacheFaults, EntrySymlinkIsNeverFollowed) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const DiskCache elsewhere(CacheConfig{true, (dir.path() / "elsewhere").string()});
  const std::string key = key_for("linked entry");
  elsewhere.store(key, sample());
  ASSERT_EQ(elsewhere.load(key), sample());
  fs::create_directories(shard_of(cache, key));
  fs::create_symlink(elsewhere.entry_path(key), cache.entry_path(key));
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_TRUE(mentions(warnings, "'" + cache.entry_path(key) + "' is a symbolic link")) << text_of(warnings);
  cache.store(key, sample(10));
  EXPECT_EQ(fs::symlink_status(cache.entry_path(key)).type(), fs::file_type::regular);
  EXPECT_EQ(cache.load(key), sample(10));
  EXPECT_EQ(elsewhere.load(key), sample());  // the link's target was not written through
}

TEST(DiskCacheFaults, ShardSymlinkIsNeverFollowed) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const DiskCache elsewhere(CacheConfig{true, (dir.path() / "elsewhere").string()});
  const std::string key = key_for("linked shard");
  elsewhere.store(key, sample());
  fs::create_directories(cache.config().directory);
  fs::create_directory_symlink(shard_of(elsewhere, key), shard_of(cache, key));
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_NO_THROW(cache.store(key, sample(10)));
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "'" + shard_of(cache, key).string() + "' is a symbolic link")) << text_of(warnings);
  EXPECT_EQ(elsewhere.load(key), sample());
  EXPECT_EQ(std::distance(fs::directory_iterator(shard_of(elsewhere, key)), fs::directory_iterator()), 1);
}

TEST(DiskCacheFaults, ShardSymlinkLoopWarnsOnce) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("shard loop");
  fs::create_directories(cache.config().directory);
  fs::create_directory_symlink(key.substr(0, 2), shard_of(cache, key));  // points at itself
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_NO_THROW(cache.store(key, sample()));
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, shard_of(cache, key).string())) << text_of(warnings);
}

TEST(DiskCacheFaults, RootNameLongerThanTheFileNameLimit) {
  TempDir dir;
  const fs::path root = dir.path() / std::string(300, 'x') / "cccl" / "coop";
  const DiskCache cache(CacheConfig{true, root.string()});
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key_for("long")), std::nullopt);
  EXPECT_NO_THROW(cache.store(key_for("long"), sample()));
  EXPECT_THROW(cache.stats(), Error);  // asked for explicitly: an error, not a warning
  EXPECT_TRUE(mentions(warnings, "File name too long")) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "compiling without the disk cache")) << text_of(warnings);
}

TEST(DiskCacheFaults, RootOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  fs::create_directories(cache.config().directory);
  ASSERT_EQ(::chown(cache.config().directory.c_str(), 65534, 65534), 0);
  fs::permissions(cache.config().directory, fs::perms::all);  // writable by us: refused, not merely failing
  const std::string key = key_for("foreign");
  const CapturedWarnings warnings;
  cache.store(key, sample());
  EXPECT_FALSE(fs::exists(shard_of(cache, key)));
  EXPECT_EQ(cache.load(key), std::nullopt);
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "'" + cache.config().directory + "' belongs to uid 65534")) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "whoever can write it can put code into your kernels")) << text_of(warnings);
}

TEST(DiskCacheFaults, RootWithoutPermissionsWarns) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores mode bits; RootThatIsAFileWarnsOnceNamingThePath stands in";
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  fs::create_directories(cache.config().directory);
  fs::permissions(cache.config().directory, fs::perms::none);
  const CapturedWarnings warnings;
  cache.store(key_for("mode 000"), sample());
  EXPECT_EQ(cache.load(key_for("mode 000")), std::nullopt);
  fs::permissions(cache.config().directory, fs::perms::owner_all);
  EXPECT_TRUE(mentions(warnings, "Permission denied")) << text_of(warnings);
}

fs::perms permissions_of(const fs::path& path) { return fs::symlink_status(path).permissions() & fs::perms::mask; }

class CachePermissions : public ::testing::TestWithParam<mode_t> {};

TEST_P(CachePermissions, DirectoriesAre0700AndEntries0600WhateverTheUmask) {
  TempDir dir;
  const fs::path xdg = dir.path() / "xdg";
  const DiskCache cache(CacheConfig{true, (xdg / "cccl" / "coop").string()});
  const std::string key = key_for("permissions");
  const mode_t old = ::umask(GetParam());
  cache.store(key, sample());
  ::umask(old);
  for (const fs::path& directory : {xdg, xdg / "cccl", xdg / "cccl" / "coop", shard_of(cache, key)}) {
    EXPECT_EQ(permissions_of(directory), fs::perms::owner_all) << directory;
  }
  EXPECT_EQ(permissions_of(cache.entry_path(key)), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(cache.load(key), sample());
}

INSTANTIATE_TEST_SUITE_P(Umask, CachePermissions, ::testing::Values(mode_t{022}, mode_t{0}, mode_t{077}, mode_t{0777}),
                         [](const ::testing::TestParamInfo<mode_t>& info) {
                           return "Umask" + std::to_string(info.param / 64) + std::to_string(info.param / 8 % 8) +
                                  std::to_string(info.param % 8);
                         });

TEST(DiskCacheTrust, KeyIsMadeOncePrivateAndKept) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  cache.store(key_for("first"), sample());
  const fs::path key_file = fs::path(cache.config().directory) / "entry-key";
  EXPECT_EQ(permissions_of(key_file), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::file_size(key_file), 32u);
  const std::string secret = secret_of(cache);
  cache.store(key_for("second"), sample());
  EXPECT_EQ(secret_of(cache), secret);
  EXPECT_EQ(disk_cache(dir).load(key_for("first")), sample());
  EXPECT_EQ(cache.clear().removed, 2u);
  EXPECT_EQ(secret_of(cache), secret);  // clear() removes entries, never the key
}

// A cache whose key is gone cannot tell its entries from planted ones; the next store makes
// a new key and replaces the entry.
TEST(DiskCacheTrust, MissingKeyRefusesEveryEntryUntilTheNextStore) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("keyless");
  cache.store(key, sample());
  const fs::path key_file = fs::path(cache.config().directory) / "entry-key";
  fs::remove(key_file);
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, "'" + cache.entry_path(key) + "' cannot be verified: the cache's key '" +
                                     key_file.string() + "' is missing"))
      << text_of(warnings);
  cache.store(key, sample(100));
  EXPECT_EQ(cache.load(key), sample(100));
}

// An upgrade leaves entries of the old format and no key: they are replaced without a word.
TEST(DiskCacheTrust, OldFormatEntryWithoutAKeyIsASilentMiss) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("upgraded");
  fs::create_directories(shard_of(cache, key));
  testing::write_text(cache.entry_path(key), "coop-cache-entry 2\n{}\n" + std::string(64, '0'));
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  EXPECT_TRUE(warnings.texts().empty()) << text_of(warnings);
  cache.store(key, sample());
  EXPECT_EQ(cache.load(key), sample());
}

// Where a case puts a fault the cache must not trust, and what the one warning says about it.
struct Distrust {
  std::string name;
  std::function<void(const DiskCache&, const std::string& key)> arrange;
  std::function<std::string(const DiskCache&, const std::string& key)> warning;
  bool store_replaces;  // the fault is an entry in a shard the cache trusts, which a store replaces
  bool needs_root = false;
};

void PrintTo(const Distrust& distrust, std::ostream* out) { *out << distrust.name; }

fs::path root_of(const DiskCache& cache) { return cache.config().directory; }
fs::path key_file_of(const DiskCache& cache) { return root_of(cache) / "entry-key"; }

void set_mode(const fs::path& path, mode_t mode) { ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path; }
void give_away(const fs::path& path) { ASSERT_EQ(::lchown(path.c_str(), 65534, 65534), 0) << path; }

class Untrusted : public ::testing::TestWithParam<Distrust> {};

// Each case spoils a valid entry's surroundings: the load misses with one warning naming
// the path and why, and the store after it writes nothing where the cache refused to look.
TEST_P(Untrusted, IsRefusedWithOneWarning) {
  const Distrust& distrust = GetParam();
  if (distrust.needs_root && ::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const std::string key = key_for("untrusted");
  cache.store(key, sample());
  distrust.arrange(cache, key);
  const std::vector<char> before = testing::read_bytes(cache.entry_path(key));
  const CapturedWarnings warnings;
  EXPECT_EQ(cache.load(key), std::nullopt);
  cache.store(key, sample(100));
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  EXPECT_TRUE(mentions(warnings, distrust.warning(cache, key))) << text_of(warnings);
  if (distrust.store_replaces) {
    EXPECT_EQ(cache.load(key), sample(100));
    EXPECT_EQ(permissions_of(cache.entry_path(key)), fs::perms::owner_read | fs::perms::owner_write);
  } else {
    EXPECT_EQ(testing::read_bytes(cache.entry_path(key)), before);
  }
}

std::string named(const fs::path& path) { return "'" + path.string() + "' "; }

INSTANTIATE_TEST_SUITE_P(
    DiskCacheTrust, Untrusted,
    ::testing::Values(
        Distrust{"RootWritableByOthers",
                 [](const DiskCache& cache, const std::string&) { set_mode(root_of(cache), 0777); },
                 [](const DiskCache& cache, const std::string&) {
                   return named(root_of(cache)) + "is writable by its group or by others (mode 0777)";
                 },
                 false},
        Distrust{"RootWritableByItsGroup",
                 [](const DiskCache& cache, const std::string&) { set_mode(root_of(cache), 0770); },
                 [](const DiskCache& cache, const std::string&) {
                   return named(root_of(cache)) + "is writable by its group or by others (mode 0770)";
                 },
                 false},
        Distrust{"RootIsASymbolicLink",
                 [](const DiskCache& cache, const std::string&) {
                   const fs::path real = root_of(cache).string() + ".real";
                   fs::rename(root_of(cache), real);
                   fs::create_directory_symlink(real, root_of(cache));
                 },
                 [](const DiskCache& cache, const std::string&) {
                   return named(root_of(cache)) + "is a symbolic link, which the cache never follows";
                 },
                 false},
        Distrust{"ShardWritableByOthers",
                 [](const DiskCache& cache, const std::string& key) { set_mode(shard_of(cache, key), 0777); },
                 [](const DiskCache& cache, const std::string& key) {
                   return named(shard_of(cache, key)) + "is writable by its group or by others (mode 0777)";
                 },
                 false},
        Distrust{"EntryWritableByOthers",
                 [](const DiskCache& cache, const std::string& key) { set_mode(cache.entry_path(key), 0666); },
                 [](const DiskCache& cache, const std::string& key) {
                   return named(cache.entry_path(key)) + "is writable by its group or by others (mode 0666)";
                 },
                 true},
        Distrust{"KeyReadableByOthers",
                 [](const DiskCache& cache, const std::string&) { set_mode(key_file_of(cache), 0644); },
                 [](const DiskCache& cache, const std::string&) {
                   return named(key_file_of(cache)) + "is open to its group or to others (mode 0644)";
                 },
                 false},
        Distrust{"KeyOfAnotherSize",
                 [](const DiskCache& cache, const std::string&) { fs::resize_file(key_file_of(cache), 31); },
                 [](const DiskCache& cache, const std::string&) {
                   return named(key_file_of(cache)) +
                          "holds 31 bytes, not the 32 of a cache key (remove it: the next compile makes a new one)";
                 },
                 false},
        Distrust{"KeyIsASymbolicLink",
                 [](const DiskCache& cache, const std::string&) {
                   fs::rename(key_file_of(cache), root_of(cache) / "elsewhere");
                   fs::create_symlink(root_of(cache) / "elsewhere", key_file_of(cache));
                 },
                 [](const DiskCache& cache, const std::string&) {
                   return named(key_file_of(cache)) + "is a symbolic link, which the cache never follows";
                 },
                 false},
        Distrust{"EntryOwnedByAnotherUser",
                 [](const DiskCache& cache, const std::string& key) { give_away(cache.entry_path(key)); },
                 [](const DiskCache& cache, const std::string& key) {
                   return named(cache.entry_path(key)) + "belongs to uid 65534";
                 },
                 true, true},
        Distrust{"ShardOwnedByAnotherUser",
                 [](const DiskCache& cache, const std::string& key) { give_away(shard_of(cache, key)); },
                 [](const DiskCache& cache, const std::string& key) {
                   return named(shard_of(cache, key)) + "belongs to uid 65534";
                 },
                 false, true},
        Distrust{"KeyOwnedByAnotherUser",
                 [](const DiskCache& cache, const std::string&) { give_away(key_file_of(cache)); },
                 [](const DiskCache& cache, const std::string&) {
                   return named(key_file_of(cache)) + "belongs to uid 65534";
                 },
                 false, true}),
    [](const ::testing::TestParamInfo<Distrust>& info) { return info.param.name; });

TEST(DiskCacheFaults, ClearRemovesWhatItCanAndReportsTheRest) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  cache.store(key_for("a"), sample(100));
  cache.store(key_for("b"), sample(100));
  const std::string stuck = cache.entry_path(key_for("stuck"));
  fs::create_directories(fs::path(stuck) / "inside");  // a non-empty directory: remove() refuses it
  const CacheClearReport report = cache.clear();
  EXPECT_EQ(report.removed, 2u);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].path, stuck);
  EXPECT_EQ(report.failures[0].reason, "Directory not empty");
  EXPECT_EQ(cache.load(key_for("a")), std::nullopt);
  EXPECT_EQ(cache.load(key_for("b")), std::nullopt);
}

TEST(DiskCacheFaults, ClearNeverReachesThroughASymlinkedShard) {
  TempDir dir;
  const DiskCache cache = disk_cache(dir);
  const DiskCache elsewhere(CacheConfig{true, (dir.path() / "elsewhere").string()});
  const std::string key = key_for("not ours to clear");
  elsewhere.store(key, sample());
  fs::create_directories(cache.config().directory);
  fs::create_directory_symlink(shard_of(elsewhere, key), shard_of(cache, key));
  EXPECT_EQ(cache.stats().entries, 0u);
  const CacheClearReport report = cache.clear();
  EXPECT_EQ(report.removed, 0u);
  EXPECT_TRUE(report.failures.empty());
  EXPECT_EQ(elsewhere.load(key), sample());
}

TEST(DiskCacheFaults, StatsOfARootThatCannotBeListedIsACacheError) {
  TempDir dir;
  testing::write_text(dir.path() / "file", "");
  const DiskCache cache(CacheConfig{true, (dir.path() / "file").string()});
  try {
    cache.stats();
    FAIL() << "stats of a regular file succeeded";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Cache);
    EXPECT_NE(std::string(error.what()).find("cannot list '" + (dir.path() / "file").string() + "'"), std::string::npos)
        << error.what();
  }
  const CacheClearReport report = cache.clear();
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_EQ(report.failures[0].path, (dir.path() / "file").string());
}

TEST(CacheConfig, UnknownEnableValueWarnsOnceAndKeepsTheDefault) {
  const ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
  const ScopedEnv env("CUDA_COOP_ENABLE_CACHE", "maybe-from-cache-test");
  const CapturedWarnings warnings;
  EXPECT_TRUE(CacheConfig::from_environment().enabled);
  EXPECT_TRUE(CacheConfig::from_environment().enabled);
  ASSERT_EQ(warnings.texts().size(), 1u) << text_of(warnings);
  for (const char* fragment : {"CUDA_COOP_ENABLE_CACHE='maybe-from-cache-test'", "1, true, yes or on",
                               "0, false, no, off or empty", "kept the default (on)"}) {
    EXPECT_TRUE(mentions(warnings, fragment)) << fragment << "\n" << text_of(warnings);
  }
}

}  // namespace
}  // namespace coop
