// The engine's pipeline through its caches: what compiles, what is reused, and
// what a cache key must (and must not) depend on. Every compile here is real NVRTC.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <optional>

#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;

CallFacts tile_call(const std::string& operation, const std::string& algorithm) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = Group::this_block({128, 1, 1});
  facts.dtype = DType::Int32;
  facts.items_per_thread = 2;
  facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  return facts;
}

EngineConfig config_in(const fs::path& cache_dir) { return testing::isolated_engine_config(cache_dir); }

std::vector<Plan> tile_copy(Engine& engine) {
  return {engine.plan(tile_call("load", "transpose")), engine.plan(tile_call("store", "transpose"))};
}

TEST(EngineCache, MissThenMemoryHitThenDiskHitInAFreshEngine) {
  testing::TempDir dir;
  Engine first(config_in(dir.path()));
  const Bundle compiled = first.compile(tile_copy(first), "sm_90");
  EXPECT_EQ(compiled.cache, CacheOutcome::Miss);
  EXPECT_GT(compiled.compile_seconds, 0.0);
  EXPECT_FALSE(compiled.ltoir.empty());
  EXPECT_EQ(first.disk_cache().stats().entries, 1u);

  const Bundle again = first.compile(tile_copy(first), "sm_90");
  EXPECT_EQ(again.cache, CacheOutcome::MemoryHit);
  EXPECT_EQ(again.compile_seconds, 0.0);

  Engine second(config_in(dir.path()));  // a new process sees only the disk
  const Bundle loaded = second.compile(tile_copy(second), "sm_90");
  EXPECT_EQ(loaded.cache, CacheOutcome::DiskHit);
  EXPECT_EQ(loaded.compile_seconds, 0.0);
  EXPECT_EQ(loaded.ltoir, compiled.ltoir);
  ASSERT_EQ(loaded.providers.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(loaded.providers[i].symbol, compiled.providers[i].symbol);
    EXPECT_EQ(loaded.providers[i].scratch, compiled.providers[i].scratch);
    EXPECT_GT(loaded.providers[i].scratch.bytes, 0u);
  }
}

// A note kept before the cache directory exists waits for the first entry, and every one waiting
// is stored with it (the toolkit's header note and the Python layer's located toolkit both wait).
TEST(EngineCache, NotesKeptEarlyAreStoredWithTheFirstEntry) {
  testing::TempDir dir;
  Engine engine(config_in(dir.path() / "cache"));
  ASSERT_FALSE(fs::exists(engine.disk_cache().config().directory));
  engine.keep_note("early-one", "first");
  engine.keep_note("early-two", "second");
  EXPECT_EQ(engine.disk_cache().load_note("early-one"), std::nullopt);
  engine.compile(tile_copy(engine), "sm_90");
  EXPECT_EQ(engine.disk_cache().load_note("early-one"), "first");
  EXPECT_EQ(engine.disk_cache().load_note("early-two"), "second");
  engine.keep_note("late-one", "third");  // the directory exists now: stored at once
  EXPECT_EQ(engine.disk_cache().load_note("late-one"), "third");
}

// The stages of a call add up to its time: a miss spends it compiling and storing, a hit reading.
TEST(EngineCache, StagesAccountForTheCall) {
  testing::TempDir dir;
  Engine first(config_in(dir.path()));
  const std::vector<Plan> plans = tile_copy(first);
  const auto start = std::chrono::steady_clock::now();
  const Bundle compiled = first.compile(plans, "sm_90");
  const double call = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const StageSeconds& s = compiled.stages;
  EXPECT_EQ(s.nvrtc, compiled.compile_seconds);
  EXPECT_GT(s.emit, 0.0);
  EXPECT_GT(s.cache_write, 0.0);
  const double sum = s.toolkit + s.emit + s.cache_read + s.nvrtc_load + s.nvrtc_wait + s.nvrtc + s.cache_write;
  EXPECT_LE(sum, call);
  EXPECT_GE(sum, 0.95 * call);

  Engine second(config_in(dir.path()));
  const Bundle loaded = second.compile(tile_copy(second), "sm_90");
  EXPECT_GT(loaded.stages.cache_read, 0.0);
  EXPECT_EQ(loaded.stages.nvrtc + loaded.stages.nvrtc_load + loaded.stages.cache_write, 0.0);
}

TEST(EngineCache, DisabledCacheCompilesEveryNewEngine) {
  testing::TempDir dir;
  EngineConfig config = config_in(dir.path());
  config.cache.enabled = false;
  Engine engine(config);
  EXPECT_EQ(engine.compile({engine.plan(tile_call("load", "direct"))}, "sm_90").cache, CacheOutcome::Disabled);
  EXPECT_EQ(engine.disk_cache().stats().entries, 0u);
}

TEST(EngineCache, KeyFollowsEverythingThatShapesTheCode) {
  testing::TempDir dir;
  Engine engine(config_in(dir.path()));
  const auto key_of = [&](CallFacts facts, const std::string& arch = "sm_90") {
    const EmittedSource source = engine.emit({engine.plan(facts)}, arch);
    return cache_key(source.text, {"-std=c++17"}, arch, engine.toolkit().identity);
  };
  const CallFacts base = tile_call("load", "transpose");
  const std::string key = key_of(base);
  auto changed = [&](auto edit) {
    CallFacts facts = base;
    edit(facts);
    return key_of(facts);
  };
  EXPECT_NE(key, changed([](CallFacts& f) { f.dtype = DType::Float32; }));
  EXPECT_NE(key, changed([](CallFacts& f) { f.group = Group::this_block({32, 4, 1}); }));
  EXPECT_NE(key, changed([](CallFacts& f) { f.options["algorithm"] = OptionBinding::fixed("warp_transpose"); }));
  EXPECT_NE(key, changed([](CallFacts& f) { f.options["valid_items"] = OptionBinding::runtime(); }));
  EXPECT_NE(key, changed([](CallFacts& f) { f.options["valid_items"] = OptionBinding::fixed("7"); }));
  EXPECT_NE(key, key_of(base, "sm_100"));
  // A runtime operand's value is not part of the call's facts at all: two
  // launches with different tail counts share one provider.
  CallFacts tail_a = base, tail_b = base;
  tail_a.options["valid_items"] = OptionBinding::runtime();
  tail_b.options["valid_items"] = OptionBinding::runtime();
  tail_b.where = "another call site";
  EXPECT_EQ(key_of(tail_a), key_of(tail_b));
}

TEST(EngineCache, HeaderIdentityChangesTheKey) {
  testing::TempDir dir;
  Engine engine(config_in(dir.path()));
  const fs::path headers = dir.path() / "cccl";
  fs::create_directories(headers);
  for (const char* tree : {"cub", "cuda", "nv", "thrust"}) {
    fs::create_directory_symlink(fs::path(engine.toolkit().cccl_include) / tree, headers / tree);
  }
  EngineConfig other_config = config_in(dir.path());
  other_config.toolkit.cccl_root = headers.string();
  Engine other(other_config);
  EXPECT_NE(engine.toolkit().identity, other.toolkit().identity);
  const std::vector<Plan> plans = {engine.plan(tile_call("store", "direct"))};
  const Bundle here = engine.compile(plans, "sm_90");
  const Bundle there = other.compile(plans, "sm_90");
  EXPECT_NE(here.cache_key, there.cache_key);
  EXPECT_EQ(there.cache, CacheOutcome::Miss);
}

// A CCCL whose headers use what the trimmed source leaves out (here cuda/ptx naming a
// tcgen05 wrapper, whose header the trimmed source skips): the bundle compiles again
// with every header, and warns once.
TEST(EngineCache, HeadersThatNeedWhatTheTrimLeavesOutCompileUntrimmed) {
  testing::TempDir dir;
  Engine engine(config_in(dir.path()));
  const fs::path real = engine.toolkit().cccl_include;
  const fs::path headers = dir.path() / "cccl";
  fs::create_directories(headers / "cuda");
  for (const char* tree : {"cub", "nv", "thrust"}) fs::create_directory_symlink(real / tree, headers / tree);
  for (const auto& entry : fs::directory_iterator(real / "cuda")) {
    if (entry.path().filename() == "ptx") continue;
    fs::create_symlink(entry.path(), headers / "cuda" / entry.path().filename());
  }
  testing::write_text(headers / "cuda" / "ptx",
                      "#pragma once\n#include \"" + (real / "cuda" / "ptx").string() +
                          "\"\nstatic_assert(sizeof(&::cuda::ptx::tcgen05_fence_before_thread_sync<>) > 0);\n");
  EngineConfig config = config_in(dir.path());
  config.toolkit.cccl_root = headers.string();
  Engine other(config);
  const std::vector<Plan> plans = {other.plan(tile_call("load", "transpose"))};
  const testing::CapturedWarnings warnings;
  const Bundle bundle = other.compile(plans, "sm_90");
  EXPECT_FALSE(bundle.ltoir.empty());
  EXPECT_EQ(bundle.source.find("#define _CUDA_PTX_"), std::string::npos) << "compiled untrimmed";
  EXPECT_NE(warnings.joined().find("it compiled with every header"), std::string::npos) << warnings.joined();
  EXPECT_NE(engine.compile(plans, "sm_90").source.find("#define _CUDA_PTX_TCGEN05_FENCE_H_"), std::string::npos);
}

TEST(EngineCache, SourceIsDumpedOnHitsToo) {
  testing::TempDir dir;
  EngineConfig config = config_in(dir.path() / "cache");
  config.backend = "test";
  config.source_dump_dir = (dir.path() / "dumps").string();
  Engine engine(config);
  const Bundle miss = engine.compile({engine.plan(tile_call("load", "striped"))}, "sm_90");
  fs::remove_all(dir.path() / "dumps");
  Engine fresh(config);
  const Bundle hit = fresh.compile({fresh.plan(tile_call("load", "striped"))}, "sm_90");
  EXPECT_EQ(hit.cache, CacheOutcome::DiskHit);
  ASSERT_FALSE(hit.dump_path.empty());
  EXPECT_EQ(fs::path(hit.dump_path).filename().string(), "cuda_coop_test_" + miss.cache_key.substr(0, 16) + ".cu");
  EXPECT_EQ(testing::read_text(hit.dump_path), miss.source);
}

TEST(EngineCache, TwoProcessesCompilingAtOnceLeaveOneValidEntry) {
  testing::TempDir dir;
  const std::string command = "XDG_CACHE_HOME=" + dir.path().string() + " CUDA_COOP_ENABLE_CACHE=1 " + COOP_TOOL +
                              " compile load --group block:64 --dtype float64 --items 3 --algorithm transpose --json";
  auto first = std::async(std::launch::async, [&] { return testing::run_command(command); });
  auto second = std::async(std::launch::async, [&] { return testing::run_command(command); });
  const auto a = first.get(), b = second.get();
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const CacheStats stats = DiskCache(CacheConfig{true, (dir.path() / "cccl" / "coop").string()}).stats();
  EXPECT_EQ(stats.entries, 1u);
  const auto third = testing::run_command(command);
  EXPECT_NE(third.output.find("\"cache\": \"disk hit\""), std::string::npos) << third.output;
}

// ---- Faults around the compile: each costs a compile and a warning, never the call.

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

// A checksum-valid entry with fewer layouts than the bundle has providers is someone else's
// bundle: reading it must be a miss that the compile then heals, not an out-of-range abort.
TEST(EngineCacheFaults, EntryWithTooFewLayoutsIsAMissAndIsReplaced) {
  testing::TempDir dir;
  Engine first(config_in(dir.path()));
  const Bundle compiled = first.compile(tile_copy(first), "sm_90");
  const DiskCache& disk = first.disk_cache();
  std::optional<CachedCompile> entry = disk.load(compiled.cache_key);
  ASSERT_TRUE(entry.has_value());
  ASSERT_EQ(entry->layouts.size(), 2u);
  entry->layouts.pop_back();
  disk.store(compiled.cache_key, *entry);

  Engine second(config_in(dir.path()));
  const testing::CapturedWarnings warnings;
  const Bundle again = second.compile(tile_copy(second), "sm_90");
  EXPECT_EQ(again.cache, CacheOutcome::Miss);
  EXPECT_TRUE(has(warnings.joined(), "holds 1 layout(s) for 2 scratch specialization(s)")) << warnings.joined();
  ASSERT_EQ(again.providers.size(), 2u);
  EXPECT_EQ(again.providers[0].scratch, compiled.providers[0].scratch);
  EXPECT_EQ(disk.load(compiled.cache_key)->layouts.size(), 2u);
}

// An entry the user's own key signed but whose scratch no compile of this bundle gives (a
// bug's, a damaged disk's): a warning and a compile that replaces it, never the error of a
// call that asked for too much scratch.
class ImpossibleScratch : public ::testing::TestWithParam<std::pair<std::size_t, const char*>> {};

TEST_P(ImpossibleScratch, CostsACompileNeverTheCall) {
  const auto [bytes, warning] = GetParam();
  testing::TempDir dir;
  Engine first(config_in(dir.path()));
  const Bundle compiled = first.compile(tile_copy(first), "sm_90");
  const DiskCache& disk = first.disk_cache();
  std::optional<CachedCompile> entry = disk.load(compiled.cache_key);
  ASSERT_TRUE(entry.has_value());
  entry->layouts[0] = {bytes, 16};
  disk.store(compiled.cache_key, *entry);

  Engine second(config_in(dir.path()));
  const testing::CapturedWarnings warnings;
  const Bundle again = second.compile(tile_copy(second), "sm_90");
  EXPECT_EQ(again.cache, CacheOutcome::Miss);
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "'" + disk.entry_path(compiled.cache_key) + "' " + warning)) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "compiling instead (the compile replaces it)")) << warnings.joined();
  EXPECT_FALSE(has(warnings.joined(), "argument 'scratch'")) << warnings.joined();
  EXPECT_EQ(again.providers[0].scratch, compiled.providers[0].scratch);

  Engine third(config_in(dir.path()));
  const Bundle healed = third.compile(tile_copy(third), "sm_90");
  EXPECT_EQ(healed.cache, CacheOutcome::DiskHit);
  EXPECT_EQ(healed.providers[0].scratch, compiled.providers[0].scratch);
}

INSTANTIATE_TEST_SUITE_P(
    EngineCacheFaults, ImpossibleScratch,
    ::testing::Values(
        std::pair<std::size_t, const char*>{18446744073709551615u,
                                            "holds a scratch layout of 18446744073709551615 bytes aligned "
                                            "to 16, which no compile gives"},
        std::pair<std::size_t, const char*>{18446744073709551600u,
                                            "holds a scratch layout of 18446744073709551600 bytes for "
                                            "::cub::BlockLoad"}),
    [](const auto& info) { return info.index == 0 ? "TwoToTheSixtyFourMinusOne" : "MoreThanABlockMayUse"; });

TEST(EngineCacheFaults, DirectoryAtEntryPathCompilesWithOneWarning) {
  testing::TempDir dir;
  Engine first(config_in(dir.path() / "first"));
  const Bundle compiled = first.compile({first.plan(tile_call("load", "warp_transpose"))}, "sm_90");
  Engine second(config_in(dir.path() / "second"));
  fs::create_directories(second.disk_cache().entry_path(compiled.cache_key));
  const testing::CapturedWarnings warnings;
  const Bundle again = second.compile({second.plan(tile_call("load", "warp_transpose"))}, "sm_90");
  EXPECT_EQ(again.cache, CacheOutcome::Miss);
  EXPECT_EQ(again.ltoir, compiled.ltoir);
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), second.disk_cache().entry_path(compiled.cache_key) + "' is a directory"))
      << warnings.joined();
}

TEST(EngineCacheFaults, UnusableCacheRootStillCompiles) {
  testing::TempDir dir;
  testing::write_text(dir.path() / "file", "");
  Engine engine(config_in(dir.path() / "file" / "cache"));
  const testing::CapturedWarnings warnings;
  const Bundle bundle = engine.compile({engine.plan(tile_call("store", "striped"))}, "sm_90");
  EXPECT_FALSE(bundle.ltoir.empty());
  EXPECT_EQ(bundle.cache, CacheOutcome::Miss);
  EXPECT_TRUE(has(warnings.joined(), "compiling without the disk cache")) << warnings.joined();
  EXPECT_EQ(engine.compile({engine.plan(tile_call("store", "striped"))}, "sm_90").cache, CacheOutcome::MemoryHit);
}

TEST(EngineCacheFaults, SourceDumpDirThatIsAFileWarnsOnHitsAndMisses) {
  testing::TempDir dir;
  testing::write_text(dir.path() / "dumps", "a file, not a directory");
  EngineConfig config = config_in(dir.path() / "cache");
  config.source_dump_dir = (dir.path() / "dumps").string();
  const testing::CapturedWarnings warnings;
  Engine engine(config);
  const Bundle miss = engine.compile({engine.plan(tile_call("store", "direct"))}, "sm_90");
  Engine fresh(config);
  const Bundle hit = fresh.compile({fresh.plan(tile_call("store", "direct"))}, "sm_90");
  EXPECT_EQ(miss.cache, CacheOutcome::Miss);
  EXPECT_EQ(hit.cache, CacheOutcome::DiskHit);
  EXPECT_TRUE(miss.dump_path.empty());
  EXPECT_TRUE(hit.dump_path.empty());
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "CUDA_COOP_SOURCE_DUMP_DIR='" + config.source_dump_dir + "'"))
      << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "expected a writable directory")) << warnings.joined();
  EXPECT_FALSE(has(warnings.joined(), "provider cache")) << warnings.joined();
}

// A header tree the toolkit accepts but NVRTC cannot compile: the failure path keeps the source.
fs::path broken_cccl(const fs::path& root) {
  fs::create_directories(root / "cub/block");
  testing::write_text(root / "cub/version.cuh", "#pragma once\n#define CUB_VERSION 300001\n");
  testing::write_text(root / "cub/block/block_load.cuh", "#error \"broken on purpose\"\n");
  return root;
}

TEST(EngineCacheFaults, TmpdirThatIsNowhereStillKeepsTheFailedSource) {
  testing::TempDir dir;
  EngineConfig config = config_in(dir.path() / "cache");
  config.toolkit.cccl_root = broken_cccl(dir.path() / "cccl").string();
  const std::string nowhere = (dir.path() / "nowhere").string();
  const testing::ScopedEnv tmpdir("TMPDIR", nowhere);
  const testing::CapturedWarnings warnings;
  Engine engine(config);
  try {
    engine.compile({engine.plan(tile_call("load", "direct"))}, "sm_90");
    FAIL() << "a broken header tree compiled";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::ProviderCompile);
    const std::string message = error.what();
    const std::size_t at = message.find("generated source: /tmp/cuda_coop_test_");
    ASSERT_NE(at, std::string::npos) << message;
    const std::string kept = message.substr(at + 18, message.find('\n', at) - at - 18);
    EXPECT_TRUE(fs::exists(kept)) << kept;
    fs::remove(kept);
  }
  EXPECT_TRUE(has(warnings.joined(), "TMPDIR='" + nowhere + "' is not usable")) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "expected a writable directory")) << warnings.joined();
}

TEST(EngineEnvironment, PchPolicyIsReadInAnyCase) {
  for (const auto& [value, policy] :
       std::vector<std::pair<std::string, PchPolicy>>{{"never", PchPolicy::Never},
                                                      {"NEVER", PchPolicy::Never},
                                                      {"After_First", PchPolicy::AfterFirst},
                                                      {"always", PchPolicy::Always},
                                                      {"Background", PchPolicy::Background},
                                                      {"", PchPolicy::Always}}) {
    const testing::ScopedEnv pch("CUDA_COOP_PCH", value);
    EXPECT_EQ(EngineConfig::from_environment("test").pch, policy) << value;
  }
  const testing::ScopedEnv unset("CUDA_COOP_PCH", "");
  EXPECT_EQ(EngineConfig::from_environment("cli", PchPolicy::AfterFirst).pch, PchPolicy::AfterFirst);
}

TEST(EngineEnvironment, UnknownPchPolicyWarnsOnceAndKeepsTheDefault) {
  const testing::ScopedEnv pch("CUDA_COOP_PCH", "sometimes-from-engine-test");
  const testing::CapturedWarnings warnings;
  EXPECT_EQ(EngineConfig::from_environment("test").pch, PchPolicy::Always);
  EXPECT_EQ(EngineConfig::from_environment("test").pch, PchPolicy::Always);
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "CUDA_COOP_PCH='sometimes-from-engine-test'")) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "one of background, always, after_first, never")) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "kept the default (always)")) << warnings.joined();
}

TEST(EngineEnvironment, LogStagesComeFromOneParser) {
  const auto stages = [](const std::optional<std::string>& value) {
    const testing::ScopedEnv log("CUDA_COOP_LOG", value);
    return log_stages();
  };
  using Stages = std::vector<std::string>;
  EXPECT_EQ(stages(std::nullopt), Stages{});
  EXPECT_EQ(stages(""), Stages{});
  EXPECT_EQ(stages("cache,plan"), (Stages{"plan", "cache"}));
  EXPECT_EQ(stages(" Plan , COMPILE "), (Stages{"plan", "compile"}));
  EXPECT_EQ(stages("all"), (Stages{"plan", "compile", "cache", "progress", "traceback"}));
  EXPECT_EQ(stages("traceback"), Stages{"traceback"});
  const testing::CapturedWarnings warnings;
  EXPECT_EQ(stages("plan,verbose-from-engine-test"), Stages{"plan"});
  EXPECT_EQ(stages("plan,verbose-from-engine-test"), Stages{"plan"});
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "CUDA_COOP_LOG='plan,verbose-from-engine-test'")) << warnings.joined();
  EXPECT_TRUE(has(warnings.joined(), "plan, compile, cache, progress, traceback, all")) << warnings.joined();
}

}  // namespace
}  // namespace coop
