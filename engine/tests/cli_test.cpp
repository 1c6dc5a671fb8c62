// The coop command as a user meets it: what it prints, and how it refuses bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace coop {
namespace {

testing::CommandResult coop(const std::string& arguments, const std::string& environment = "") {
  return testing::run_command(environment + " " + COOP_TOOL + " " + arguments);
}

TEST(Cli, ExplainPrintsThePlanAndTheGeneratedSource) {
  const auto result = coop("explain load --group block:128 --dtype int32 --items 2 --algorithm direct");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* expected :
       {"cub: ::cub::BlockLoad<::cuda::std::int32_t, 128, 2, ::cub::BLOCK_LOAD_DIRECT, 1, 1>::Load", "scratch: none",
        "reuse barrier: none", "#include <cub/block/block_load.cuh>", "extern \"C\" __device__ int coop_load_"}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << expected << "\n" << result.output;
  }
}

TEST(Cli, ExplainMarksRuntimeOptions) {
  const auto result = coop(
      "explain load --group warp:8 --block 64 --dtype float32 --items 4 --algorithm transpose --valid-items "
      "--oob-default --offset 16");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("valid_items: RUNTIME"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("oob_default: RUNTIME"), std::string::npos);
  EXPECT_NE(result.output.find("offset: STATIC 16"), std::string::npos);
  EXPECT_NE(result.output.find("::cub::WarpLoad<float, 4, ::cub::WARP_LOAD_TRANSPOSE, 8>"), std::string::npos);
  EXPECT_NE(result.output.find("scratch: 8 x sizeof"), std::string::npos);
}

TEST(Cli, ExplainsAReduction) {
  const auto result = coop("explain reduce --group block:128 --dtype float32 --items 4 --op max --algorithm raking");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* expected : {"cub: ::cub::BlockReduce<float, 128, ::cub::BLOCK_REDUCE_RAKING, 1, 1>::Reduce",
                               "payload: ThreadData[4]", "op: STATIC max", "result: float written through ret",
                               "Reduce(items, ::cuda::maximum<>{})", "*static_cast<float*>(__ret) = "}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << expected << "\n" << result.output;
  }
}

TEST(Cli, ExplainsScansWithTheirOptions) {
  const auto scalar = coop(
      "explain exclusive_scan --group warp:16 --block 64 --dtype int64 --scalar --op min --initial-value 7 "
      "--block-aggregate");
  ASSERT_EQ(scalar.exit_code, 0) << scalar.output;
  EXPECT_NE(scalar.output.find("initial_value: STATIC 7"), std::string::npos) << scalar.output;
  EXPECT_NE(scalar.output.find("block_aggregate: RUNTIME"), std::string::npos);
  EXPECT_NE(scalar.output.find("payload: scalar"), std::string::npos);
  const auto items = coop("explain inclusive_sum --group block:32,4 --items 4 --output-array --algorithm warp_scans");
  ASSERT_EQ(items.exit_code, 0) << items.output;
  EXPECT_NE(items.output.find("InclusiveSum(items, output)"), std::string::npos) << items.output;
  const auto warp = coop("explain segmented_reduce --group warp --block 64 --scalar --op sum --flags tails");
  EXPECT_NE(warp.output.find("::TailSegmentedReduce"), std::string::npos) << warp.output;
  const auto broadcast = coop("explain broadcast --group warp:8 --block 64 --scalar --src-lane");
  EXPECT_NE(broadcast.output.find("src_lane: RUNTIME"), std::string::npos) << broadcast.output;
}

TEST(Cli, CompileBundlesSeveralCallsAndReportsLayouts) {
  testing::TempDir dir;
  const std::string ltoir = (dir.path() / "bundle.ltoir").string();
  const auto result = coop(
      "compile load --group block:32,4 --dtype int64 --items 4 --algorithm transpose "
      "--call \"store --group block:32,4 --dtype int64 --items 4 --algorithm striped\" "
      "--arch sm_90 --json -o " +
          ltoir,
      "CUDA_COOP_ENABLE_CACHE=0");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto report = nlohmann::json::parse(result.output);
  ASSERT_EQ(report["providers"].size(), 2u);
  EXPECT_EQ(report["providers"][0]["scratch_alignment"], 16);
  EXPECT_GT(report["providers"][0]["scratch_bytes"].get<int>(), 0);
  EXPECT_EQ(report["providers"][1]["scratch_bytes"], 0);
  EXPECT_EQ(report["ltoir_bytes"].get<std::size_t>(), testing::read_bytes(ltoir).size());
}

struct BadInput {
  std::string arguments;
  std::string names;  // what the message must contain
};

class CliRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliRejects, WithStatusTwoAndOneMessage) {
  const auto result = coop(GetParam().arguments);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(GetParam().names), std::string::npos) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
}

INSTANTIATE_TEST_SUITE_P(
    BadCalls, CliRejects,
    ::testing::Values(
        BadInput{"explain load --dtype int33", "'--dtype' = 'int33' is not allowed; expected one of: bool"},
        BadInput{"explain lod", "'operation' = 'lod' is not allowed; expected one of: load, store"},
        BadInput{"explain load --algorithm blocked", "'algorithm' = 'blocked'"},
        BadInput{"explain load --items 0", "'items_per_thread' = 0"},
        BadInput{"explain load --group block:0", "'block' = (0,1,1)"},
        BadInput{"explain load --group block:1025", "at most 1024 threads"},
        BadInput{"explain load --group warp:12 --block 64", "'warp width' = 12"},
        BadInput{"explain load --group warp --block 48", "whole warps"},
        BadInput{"explain load --oob-default", "'oob_default' = given without valid_items"},
        BadInput{"explain store --group block:100 --algorithm warp_transpose", "whole warps"},
        BadInput{"explain load --group blk:4", "'group' = 'blk:4'"},
        BadInput{"compile load --arch compute_90", "'arch' = 'compute_90'"},
        BadInput{"compile load --call \"store --dtype half\"", "'--dtype' = 'half'"},
        BadInput{"explain load --items many", "--items"}, BadInput{"frobnicate", "frobnicate"},
        BadInput{"explain reduce --op median", "'op' = 'median'"}, BadInput{"explain reduce", "'op' = omitted"},
        BadInput{"explain reduce --dtype float32 --op bit_xor", "'op' = 'bit_xor' on float32"},
        BadInput{"explain sum --items 4 --valid-items", "an overload CUB does not have"},
        BadInput{"explain segmented_reduce --scalar --op sum", "'group' = block(128,1,1)"},
        BadInput{"explain segmented_reduce --group warp --scalar --op sum --flags middle", "'flags' = 'middle'"},
        BadInput{"explain inclusive_sum --scalar --output-array", "'output' = given with a scalar"},
        BadInput{"explain exclusive_scan --op sum --initial-value 2.5", "'initial_value' = '2.5'"},
        BadInput{"explain broadcast --group warp --scalar --src-lane 32", "'src_lane' = 32"},
        BadInput{"explain sum --scalar --items 2", "'items_per_thread' = 2"},
        BadInput{"explain load --offset -5", "'offset' = -5 is not allowed; expected an integer element offset >= 0"},
        BadInput{"explain load --items 513", "'items_per_thread' = 513 is not allowed; expected at most 512"},
        BadInput{"explain load --items 2147483647 --valid-items 5", "'items_per_thread' = 2147483647"},
        BadInput{"explain load --items 99999999999", "'--items' = '99999999999'"},
        BadInput{"explain exclusive_scan --op max --initial-value -inf", "'initial_value' = '-inf'"},
        BadInput{"explain load --dtype float16 --valid-items --oob-default 1e6", "largest finite 65504"},
        BadInput{"explain load --group block:64 --block 64", "'--block' = '64'"},
        BadInput{"explain load --group", "argument '--group' needs a value; expected block:X"},
        BadInput{"compile load --arch sm_999", "'arch' = 'sm_999' is not allowed; expected an arch NVRTC"},
        BadInput{"compile load -o ''", "argument '-o' = ''"},
        BadInput{"compile load -o x.ltoir --header ./x.ltoir", "a file other than -o's ('x.ltoir')"},
        BadInput{"cache frob", "coop cache: argument 'subcommand' = 'frob'"},
        BadInput{"link /nonexistent.ltoir -o x.cubin", "'/nonexistent.ltoir' (no such file)"}));

TEST(Cli, LinkRefusesADirectoryAsInput) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "d.ltoir");
  const auto result = coop("link d.ltoir -o x.cubin", "cd " + dir.path().string() + " &&");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("argument 'input' = 'd.ltoir' (a directory) is not allowed; expected a readable, "
                               "non-empty regular file"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.cubin"));
}

TEST(Cli, WriteErrorsShowAfterTheFlush) {
  const auto result = coop("compile load --header /dev/full", "CUDA_COOP_ENABLE_CACHE=0");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("argument '--header' = '/dev/full' (No space left on device)"), std::string::npos)
      << result.output;
}

TEST(Cli, NegativeNumbersAreValues) {
  const auto result = coop("explain exclusive_scan --dtype float32 --op max --initial-value -inf");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("initial_value: STATIC -inf"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("__uint_as_float(0xff800000U)"), std::string::npos) << result.output;
  const auto load = coop("explain load --dtype int16 --valid-items -3 --offset -0");
  EXPECT_NE(load.output.find("'valid_items' = -3"), std::string::npos) << load.output;
}

// NVRTC once refused __builtin_inf: every float dtype's infinities and NaNs in one compile.
TEST(Cli, CompilesStaticInfinitiesAndNans) {
  std::string calls;
  for (const char* dtype : {"float16", "bfloat16", "float32", "float64"}) {
    for (const char* value : {"inf", "-inf", "nan"}) {
      calls += std::string(" --call \"load --dtype ") + dtype + " --valid-items --oob-default " + value + "\"";
    }
    calls += std::string(" --call \"exclusive_scan --dtype ") + dtype + " --op max --initial-value=-inf\"";
  }
  const auto result = coop("compile load --dtype float32 --valid-items --oob-default -inf" + calls + " --json",
                           "CUDA_COOP_ENABLE_CACHE=0");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(result.output)["providers"].size(), 17u);
}

TEST(Cli, PrintsItsVersion) {
  const auto result = coop("--version");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, std::string(engine_version()) + "\n");
}

TEST(Cli, CacheStatsAndClear) {
  testing::TempDir dir;
  const std::string env = "XDG_CACHE_HOME=" + dir.path().string();
  ASSERT_EQ(coop("compile store --group block:64 --dtype int8 --items 3", env).exit_code, 0);
  const auto stats = coop("cache stats --json", env);
  ASSERT_EQ(stats.exit_code, 0) << stats.output;
  EXPECT_EQ(nlohmann::json::parse(stats.output)["entries"], 1);
  const auto cleared = coop("cache clear", env);
  EXPECT_NE(cleared.output.find("removed 1 entry"), std::string::npos) << cleared.output;
  EXPECT_EQ(nlohmann::json::parse(coop("cache stats --json", env).output)["entries"], 0);
}

TEST(Cli, DoctorNamesTheToolkit) {
  const auto result = coop("doctor");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* expected : {"NVRTC:", "libnvrtc", "nvJitLink:", "CCCL headers:", "cache:"}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << result.output;
  }
}

}  // namespace
}  // namespace coop
