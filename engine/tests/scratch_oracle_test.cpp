// An independent oracle for scratch layouts. The engine learns sizeof/alignof of each TempStorage
// from NVRTC's lowered names of probe variables; here nvcc compiles a plain host program that
// prints the same two numbers for every distinct scratch-needing CUB specialization of a coverage
// matrix (load/store, reduce/scan, exchange/shuffle), and the two must agree exactly. Both read the engine's CCCL
// headers.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "coop/engine.hpp"
#include "counting_matrix.hpp"
#include "exchange_shuffle_matrix.hpp"
#include "load_store_matrix.hpp"
#include "neighbour_matrix.hpp"
#include "reduce_scan_matrix.hpp"
#include "sort_matrix.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

// A block result broadcast through scratch has its slot beside CUB's TempStorage.
bool holds_a_result(const Plan& plan) {
  return plan.result && plan.broadcasts() && plan.facts.group.kind == GroupKind::Block;
}

// The scratch a call takes: CUB's TempStorage, beside a result slot where it broadcasts one.
std::string scratch_of(const Plan& plan) {
  const std::string storage = "typename " + plan.cub_type + "::TempStorage";
  if (!holds_a_result(plan)) return storage;
  return "struct { " + storage + " storage; " + std::string(info(plan.facts.dtype).cpp) + " result; }";
}

// One line per specialization, "<index> <sizeof> <alignof>", printed from main() on the host.
std::string oracle_source(const std::vector<Plan>& plans) {
  std::set<std::string> headers;
  for (const Plan& plan : plans) headers.insert(plan.headers.begin(), plan.headers.end());
  std::ostringstream out;
  out << "#include <cstdio>\n";
  for (const std::string& header : headers) out << "#include <" << header << ">\n";
  // A class CUB lacks (a group of warps, a cluster) is the adapter itself: nvcc compiles its source.
  std::set<std::string> composed;
  for (const Plan& plan : plans) {
    if (plan.adapter != nullptr && plan.adapter->name == plan.form->cub_class) composed.insert(plan.adapter->source);
  }
  for (const std::string& source : composed) out << source << "\n";
  out << "\nint main() {\n";
  for (std::size_t i = 0; i < plans.size(); ++i) {
    out << "  using Scratch" << i << " = " << scratch_of(plans[i]) << ";\n";
    const std::string storage = "Scratch" + std::to_string(i);
    out << "  std::printf(\"" << i << " %zu %zu\\n\", sizeof(" << storage << "), alignof(" << storage << "));\n";
  }
  out << "  return 0;\n}\n";
  return out.str();
}

std::string shell_quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

struct OracleCase {
  std::string name;
  std::vector<testing::MatrixBundle> (*matrix)();
  std::size_t specializations;  // distinct scratch-needing CUB types the matrix must reach
};

class ScratchOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(ScratchOracle, NvccAgreesWithTheEngineOnEveryTempStorage) {
  EngineConfig config;
  config.backend = "scratch_oracle_test";
  config.toolkit = ToolkitSearch::from_environment();
  config.cache.enabled = false;  // the layouts must come from NVRTC now, not from an old entry
  Engine engine(config);

  // Distinct specializations only: calls differing in options share their class's TempStorage.
  std::vector<Plan> plans;
  std::set<std::string> seen;
  for (const auto& bundle : GetParam().matrix()) {
    for (const CallFacts& facts : bundle.calls) {
      Plan plan = engine.plan(facts);
      if (plan.needs_scratch && seen.insert(scratch_of(plan)).second) plans.push_back(std::move(plan));
    }
  }
  ASSERT_EQ(plans.size(), GetParam().specializations);
  const Bundle bundle = engine.compile(plans, "sm_90");  // one NVRTC call for all of them

  const testing::TempDir dir;
  const auto source = dir.path() / "scratch_oracle.cu";
  const auto program = dir.path() / "scratch_oracle";
  testing::write_text(source, oracle_source(plans));
  const Toolkit& toolkit = engine.toolkit();
  const testing::CommandResult built = testing::run_command(
      std::string(COOP_NVCC) + " -std=c++17 -arch=sm_90 -I" + shell_quoted(toolkit.cccl_include) + " -I" +
      shell_quoted(toolkit.cuda_include) + " " + shell_quoted(source) + " -o " + shell_quoted(program));
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const testing::CommandResult ran = testing::run_command(shell_quoted(program));
  ASSERT_EQ(ran.exit_code, 0) << ran.output;

  std::istringstream lines(ran.output);
  std::size_t index = 0, bytes = 0, alignment = 0, rows = 0;
  while (lines >> index >> bytes >> alignment) {
    ASSERT_EQ(index, rows++) << ran.output;
    EXPECT_EQ(bundle.providers[index].scratch, (Layout{bytes, alignment}))
        << plans[index].cub_type << ": engine " << bundle.providers[index].scratch.bytes << "/"
        << bundle.providers[index].scratch.alignment << ", nvcc " << bytes << "/" << alignment;
  }
  EXPECT_EQ(rows, plans.size()) << ran.output;
}

INSTANTIATE_TEST_SUITE_P(
    Matrices, ScratchOracle,
    ::testing::Values(
        // 6 dtypes x 2 operations x 4 items x (3 transposing block algorithms x 3 shapes + 3 warp widths).
        OracleCase{"load_store", testing::load_store_matrix, 6u * 2 * 4 * (3 * 3 + 3)},
        // Representative dtypes: (BlockReduce + BlockScan) x 3 algorithms x 3 shapes, (WarpReduce +
        // WarpScan) x 3 widths. Other dtypes: BlockReduce (2 algorithms) and BlockScan at 128 threads,
        // WarpReduce and WarpScan of 32 lanes. And a bool WarpScan of 8 lanes. Complex dtypes:
        // (BlockReduce + BlockScan) x 3 algorithms, (WarpReduce + WarpScan) x 3 widths, a BlockScan
        // at 128 threads and 4 transposing BlockLoad/BlockStore. A block reduction broadcasts its
        // result through a slot beside its TempStorage; the 3 algorithms x 5 representative dtypes
        // with broadcast=false take CUB's TempStorage alone. Groups of warps and clusters, 3 dtypes:
        // WarpsReduce of 2 and 1 warps, ClusterReduce x 3 algorithms and one of 2-D blocks.
        OracleCase{"reduce_scan", testing::reduce_scan_matrix,
                   5u * (2 * 3 * 3 + 2 * 3) + 7 * (3 + 2) + 1 + 2 * (6 + 6 + 1 + 4) + 5 * 3 + 3 * (2 + 3 + 1)},
        // Per representative dtype: BlockExchange x 4 blocks x 3 items x 2 time slicings,
        // BlockShuffle x 4 blocks, WarpExchange x 3 widths x 3 items. Per other dtype: BlockExchange
        // x 2 time slicings, one BlockShuffle and one WarpExchange.
        OracleCase{"exchange_shuffle", testing::exchange_shuffle_matrix, 3u * (24 + 4 + 9) + 12 * (2 + 1 + 1)},
        // The order, the layout, the bits and the options do not shape a TempStorage: radix sorts
        // of 12 key dtypes alone and with int32 values, and per representative key 14 more value
        // dtypes, 8 more shapes and items, 2 template-option sets; ranks of 3 key dtypes x 3
        // algorithms x 2 directions x 2 widths, and 9 shapes and items; merge sorts of 13 dtypes in
        // a block and in a warp with values, 3 block shapes and 3 widths x 2 items; top-k of 4
        // operations x (12 key dtypes + 3 items).
        OracleCase{"sort", testing::sort_matrix,
                   (12u * 2 + 2 * (14 + 8 + 2)) + (3 * 3 * 2 * 2 + 9) + (13 * 2 + 3 + 3 * 2) + 4 * (12 + 3)},
        // Neither the direction, the mode, the items nor the neighbours shape a TempStorage:
        // BlockAdjacentDifference of 14 dtypes and BlockDiscontinuity of 15 at 128 threads, and
        // both of the 2 representative dtypes in 2 more shapes.
        OracleCase{"neighbours", testing::neighbour_matrix, (14u + 2 * 2) + (15 + 2 * 2)},
        // The histogram adapter's TempStorage (CUB's beside the counters) for every call: each
        // axis is one of its template arguments. The run-length adapter's (its scan's and CUB's
        // runs) for every window call but the uint16 lengths whose offsets follow them as uint32
        // (given again) and those differing in options alone (one of 4 option sets per sampled
        // offset dtype), and for every call into memory but those differing in options alone.
        OracleCase{"counting", testing::counting_matrix, 2u * (8 * 4 + 2 * (9 + 4)) + (8 + 7 + 6 + 3 * 2 + 3) + 3 * 3}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace coop
