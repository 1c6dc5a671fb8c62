// Real NVRTC compiles of the whole load/store matrix (support/load_store_matrix.hpp): every
// algorithm x dtype x block shape or logical-warp width x items per thread, plus the partial-tile
// and offset overloads; and of the reduce/scan matrix (support/reduce_scan_matrix.hpp): every
// operation x algorithm x dtype x group x payload shape, plus every optional argument and user
// operators. Calls are bundled (timings in the matrix headers), and each matrix's bundles run in
// one process so that NVRTC's precompiled header, created by the first compile, serves the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>

#include "coop/engine.hpp"
#include "counting_matrix.hpp"
#include "exchange_shuffle_matrix.hpp"
#include "load_store_matrix.hpp"
#include "neighbour_matrix.hpp"
#include "reduce_scan_matrix.hpp"
#include "sort_matrix.hpp"

namespace coop {
namespace {

// nvrtcGetLTOIR returns an NVVM LTO-IR container: the 32-bit magic 0x7F4E43ED, little-endian.
constexpr unsigned char kLtoIrMagic[] = {0xED, 0x43, 0x4E, 0x7F};

bool starts_with_magic(const std::vector<char>& bytes) {
  if (bytes.size() < sizeof kLtoIrMagic) return false;
  for (std::size_t i = 0; i < sizeof kLtoIrMagic; ++i) {
    if (static_cast<unsigned char>(bytes[i]) != kLtoIrMagic[i]) return false;
  }
  return true;
}

bool is_power_of_two(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

bool is_load_store(const CallFacts& facts) { return facts.operation == "load" || facts.operation == "store"; }

bool is_scan(const CallFacts& facts) {
  const auto& scans = testing::kScans;
  return std::find(scans.begin(), scans.end(), facts.operation) != scans.end();
}

// Decided from names, not from the catalog's flags, so the test checks the catalog rather than
// echoing it. Of load/store only the transposing algorithms stage the tile in shared memory;
// every BlockReduce, BlockScan, WarpReduce and WarpScan has a TempStorage.
bool expects_scratch(const CallFacts& facts) {
  if (is_load_store(facts)) return facts.option("algorithm").value.find("transpose") != std::string::npos;
  return true;
}

// Sorts, ranks, selections, neighbours, histograms, run-length windows and batched reductions:
// every payload, one value per thread included, is an array.
bool writes_arrays(const CallFacts& facts) {
  for (const char* prefix : {"radix_sort", "radix_rank", "merge_sort", "topk", "adjacent_difference", "discontinuity",
                             "histogram", "reduce_batched"}) {
    if (facts.operation.starts_with(prefix)) return true;
  }
  return facts.operation == "run_length_decode";
}

// Reductions and broadcasts produce a value; scans, exchanges and shuffles produce one for a
// scalar payload only (a ThreadData result is an array the front end passes in); sorts, ranks,
// selections and neighbours write arrays the front end passes in (one value per thread is one).
bool expects_result(const CallFacts& facts) {
  if (is_load_store(facts) || writes_arrays(facts)) return false;
  const bool payload_in_payload_out = is_scan(facts) || facts.operation == "exchange" || facts.operation == "shuffle";
  return !payload_in_payload_out || facts.payload == PayloadKind::Scalar;
}

Engine& engine() {
  static Engine instance([] {
    EngineConfig config;
    config.backend = "compile_matrix_test";
    config.toolkit = ToolkitSearch::from_environment();
    config.cache.enabled = false;  // every bundle must really reach NVRTC
    config.pch = PchPolicy::Always;
    return config;
  }());
  return instance;
}

void check_provider(const Plan& plan, const Provider& provider, const std::string& source) {
  const CallFacts& facts = plan.facts;
  SCOPED_TRACE(facts.operation + " " + facts.group.describe() + " " + std::string(info(facts.dtype).name) + " x " +
               std::to_string(facts.items_per_thread) + " " + to_string(facts.payload) + " " +
               facts.option("algorithm").value);
  EXPECT_NE(source.find("extern \"C\" __device__ int " + provider.symbol + "(void* __ret"), std::string::npos)
      << provider.symbol << " has no extern \"C\" wrapper";
  EXPECT_EQ(provider.cub_type, plan.cub_type);

  const GroupKind kind = facts.group.kind;
  if (expects_scratch(facts)) {
    EXPECT_GT(provider.scratch.bytes, 0u);
    EXPECT_TRUE(is_power_of_two(provider.scratch.alignment)) << provider.scratch.alignment;
    EXPECT_EQ(provider.scratch.bytes % provider.scratch.alignment, 0u);
    // One TempStorage per (logical) warp or group of warps of the block, or one for the block
    // (each block of a cluster holds its own).
    const bool per_group = kind == GroupKind::Warp || kind == GroupKind::Warps;
    EXPECT_EQ(provider.scratch_instances, per_group ? facts.group.block.count() / facts.group.width : 1);
    // Groups of warps and clusters free their scratch on their own barrier.
    const Barrier barrier = kind == GroupKind::Block  ? Barrier::Block
                            : kind == GroupKind::Warp ? Barrier::Warp
                                                      : Barrier::Own;
    EXPECT_EQ(provider.reuse_barrier, barrier);
    EXPECT_EQ(provider.abi.back().name, "temp_storage");
  } else {
    EXPECT_EQ(provider.scratch, Layout{});
    EXPECT_EQ(provider.scratch_instances, 0);
    EXPECT_EQ(provider.reuse_barrier, Barrier::None);
    EXPECT_NE(provider.abi.back().name, "temp_storage");
  }
  if (expects_result(facts)) {
    ASSERT_TRUE(provider.result.has_value());
    // A run-length decode into memory returns its total, of the offset dtype.
    const DType dtype = facts.dtypes.contains("OffsetT") ? facts.dtypes.at("OffsetT") : facts.dtype;
    EXPECT_EQ(provider.result->cpp_type, info(dtype).cpp);
  } else {
    EXPECT_FALSE(provider.result.has_value());
  }
  // Each user function the call names, operator first, is an external function to link.
  std::vector<std::string> user_symbols;
  for (const char* name : {"binary_op", "scan_op", "prefix_op", "compare_op"}) {
    const std::string value = facts.option(name).value;
    if (value.starts_with("user:")) user_symbols.push_back(value.substr(5));
  }
  ASSERT_EQ(provider.external_functions.size(), user_symbols.size());
  for (std::size_t i = 0; i < user_symbols.size(); ++i) {
    EXPECT_EQ(provider.external_functions[i].symbol, user_symbols[i]);
  }
  if (facts.option("prefix_op").binding == Binding::Static) {
    EXPECT_EQ(provider.external_functions.back().kind, ExternalFunction::Kind::PrefixCallback);
    EXPECT_NE(std::find_if(provider.abi.begin(), provider.abi.end(),
                           [](const AbiParam& param) { return param.name == "prefix_op_state"; }),
              provider.abi.end());
  }
}

// Every bundle of one matrix, in one process; NVRTC failures are reported per bundle.
void compile_every_bundle(const std::vector<testing::MatrixBundle>& bundles) {
  const auto start = std::chrono::steady_clock::now();
  std::size_t calls = 0;
  double nvrtc_seconds = 0;
  for (const auto& matrix_bundle : bundles) {
    SCOPED_TRACE("bundle " + matrix_bundle.name);
    std::vector<Plan> plans;
    for (const CallFacts& facts : matrix_bundle.calls) plans.push_back(engine().plan(facts));
    Bundle bundle;
    try {
      bundle = engine().compile(plans, "sm_90");
    } catch (const Error& error) {
      ADD_FAILURE() << "NVRTC rejected bundle " << matrix_bundle.name << ":\n" << error.what();
      continue;  // report every failing bundle, not only the first
    }
    calls += plans.size();
    nvrtc_seconds += bundle.compile_seconds;
    EXPECT_EQ(bundle.cache, CacheOutcome::Disabled);
    EXPECT_TRUE(starts_with_magic(bundle.ltoir)) << bundle.ltoir.size() << " bytes";
    ASSERT_EQ(bundle.providers.size(), plans.size());
    for (std::size_t i = 0; i < plans.size(); ++i) check_provider(plans[i], bundle.providers[i], bundle.source);
    std::printf("  %-12s %3zu calls  %7zu bytes LTO-IR  %5.1f s%s\n", matrix_bundle.name.c_str(), plans.size(),
                bundle.ltoir.size(), bundle.compile_seconds, bundle.used_pch ? " (pch)" : "");
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu calls in %zu bundles: %.1f s NVRTC, %.1f s wall\n", calls, bundles.size(), nvrtc_seconds, wall);
}

std::size_t distinct_keys(const std::vector<testing::MatrixBundle>& bundles, std::size_t& calls) {
  std::set<std::string> keys;
  calls = 0;
  for (const auto& bundle : bundles) {
    for (const CallFacts& facts : bundle.calls) {
      keys.insert(plan(facts).key);
      ++calls;
    }
  }
  return keys.size();
}

// Emit merges calls with equal keys; distinct keys make "every call compiled" mean every combination.
TEST(CompileMatrix, CoversTheRequiredLoadStoreCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::load_store_matrix(), calls);
  // Per dtype: block 2 x 6 algorithms x 3 shapes x 4 items, warp 2 x 4 x 3 widths x 4 items,
  // partial (6 + 4 algorithms) x (4 load + 3 store variants).
  EXPECT_EQ(calls, 6u * (144 + 96 + 70));
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, CoversTheRequiredReduceScanCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::reduce_scan_matrix(), calls);
  // Per representative dtype: block 7 operations x 3 algorithms x 3 shapes x 3 payloads, warp
  // 7 x 3 widths x 3 payloads, warp-only 4 x 3 widths, option variants 27 (+ 11 with a prefix
  // callback) x 3 block algorithms + 33 in warps. Per other dtype: 7 operations x 2 payloads in a
  // block and in a warp, 4 warp-only, 2 per operator (6 integer, 3 floating), a user operator.
  // Per complex dtype: 2 payloads x (2 reductions x 3 + 4 scans x 3) in a block and 2 x 6 in
  // each of 3 warp widths, a prefix callback, 4 x load and store. Per dtype of groups of warps and
  // clusters (3): 2 reductions x 3 payloads on 2 warps groups, a cluster with 3 algorithms and one
  // without. And a bool broadcast.
  EXPECT_EQ(calls, 5u * (189 + 63 + 12 + (27 + 11) * 3 + 33) + 6 * (14 + 14 + 4 + 2 * 6 + 1) +
                       (14 + 14 + 4 + 2 * 3 + 1) + 2 * (36 + 36 + 1 + 8) + 3 * 6 * (2 + 3 + 1) + 1);
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, CoversTheRequiredExchangeShuffleCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::exchange_shuffle_matrix(), calls);
  // Per representative dtype: 4 blocks x 3 items x (8 modes x 2 time slicings + 4 up/down
  // shuffles), 4 blocks x 4 scalar shuffles, 3 warp widths x 3 items x 3 warp modes. Per other
  // dtype: one block with 4 items and 32-lane warps (16 + 4 + 3), plus 4 scalar shuffles for
  // the 10 that are not complex.
  EXPECT_EQ(calls, 3u * (4 * 3 * (16 + 4) + 4 * 4 + 3 * 3 * 3) + 12 * (16 + 4 + 3) + 10 * 4);
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, CoversTheRequiredSortCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::sort_matrix(), calls);
  // Radix sorts: 12 key dtypes x 4 orders x (keys, pairs), and for the 2 representative keys
  // 14 more value dtypes, 3 shapes x 3 items with runtime bits, static bits, 2 template-option
  // sets. Ranks: 3 dtypes x 3 algorithms x 2 directions x 2 widths x (without, with the
  // prefix), and 3 shapes x 3 items. Merge sorts: 13 dtypes x (block keys, warp pairs), and 5
  // option sets x (3 block shapes + 3 warp widths x 2 items). Top-k: 4 operations x (12 key
  // dtypes + 3 items with a constant k).
  EXPECT_EQ(calls,
            (12u * 4 * 2 + 2 * (14 + 9 + 1 + 2)) + (3 * 3 * 2 * 2 * 2 + 9) + (13 * 2 + 5 * (3 + 3 * 2)) + 4 * (12 + 3));
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, CoversTheRequiredNeighbourCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::neighbour_matrix(), calls);
  // Adjacent differences: 14 dtypes x 4 overloads, and per representative dtype 3 shapes x 3
  // items x 2 directions, a built-in operator and a static item count. Discontinuities: 15
  // dtypes x 3 modes, and per representative dtype 3 shapes x 3 items x 3 modes, both flags with
  // one neighbour (2) and a built-in predicate.
  EXPECT_EQ(calls, (14u * 4 + 2 * (9 * 2 + 2)) + (15 * 3 + 2 * (9 * 3 + 3)));
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, EveryNeighbourCallCompilesToLtoIr) { compile_every_bundle(testing::neighbour_matrix()); }

TEST(CompileMatrix, CoversTheRequiredCountingCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::counting_matrix(), calls);
  // Per histogram algorithm: 8 sample dtypes x 4 counter dtypes, and for 2 sample dtypes 3
  // shapes x 3 items and 4 bin counts. Run-length windows: 8 length dtypes the offsets follow, 8
  // offset dtypes, 6 value dtypes, 3 shapes x 2 runs per thread, 3 offset dtypes x 4 option sets;
  // into memory: 3 offset dtypes x 3 shapes x 3 option sets, and 2 strided views.
  EXPECT_EQ(calls, 2u * (8 * 4 + 2 * (9 + 4)) + (8 + 8 + 6 + 3 * 2 + 3 * 4) + (3 * 3 * 3 + 2));
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, EveryCountingCallCompilesToLtoIr) { compile_every_bundle(testing::counting_matrix()); }

TEST(CompileMatrix, CoversTheRequiredBatchedCombinationsOnce) {
  std::size_t calls = 0;
  const std::size_t keys = distinct_keys(testing::batched_matrix(), calls);
  EXPECT_EQ(calls, 2u * (3 * 3 * 2 + 1) + 10);  // see batched_bundle()
  EXPECT_EQ(keys, calls);
}

TEST(CompileMatrix, EveryBatchedReductionCompilesWhereTheCcclHasIt) {
  const std::filesystem::path header = "cub/warp/warp_reduce_batched.cuh";
  if (!std::filesystem::exists(engine().toolkit().cccl_include / header)) GTEST_SKIP() << "this CCCL lacks " << header;
  compile_every_bundle(testing::batched_matrix());
}

TEST(CompileMatrix, EverySortCallCompilesToLtoIr) { compile_every_bundle(testing::sort_matrix()); }

TEST(CompileMatrix, EveryExchangeShuffleCallCompilesToLtoIr) {
  compile_every_bundle(testing::exchange_shuffle_matrix());
}

TEST(CompileMatrix, EveryLoadStoreCallCompilesToLtoIr) { compile_every_bundle(testing::load_store_matrix()); }

TEST(CompileMatrix, EveryReduceScanCallCompilesToLtoIr) { compile_every_bundle(testing::reduce_scan_matrix()); }

}  // namespace
}  // namespace coop
