// The coop command as a user meets it: what it prints, and how it refuses bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "coop/catalog.hpp"
#include "option_flags.hpp"
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
  const auto result =
      coop("explain reduce --group block:128 --dtype float32 --items 4 --binary-op max --algorithm raking");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* expected : {"cub: ::cub::BlockReduce<float, 128, ::cub::BLOCK_REDUCE_RAKING, 1, 1>::Reduce",
                               "payload: ThreadData[4]", "binary_op: STATIC max", "result: float written through ret",
                               "Reduce(value, ::cuda::maximum<>{})", "*static_cast<float*>(__ret) = "}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << expected << "\n" << result.output;
  }
}

TEST(Cli, ExplainsScansWithTheirOptions) {
  const auto scalar = coop(
      "explain exclusive_scan --group warp:16 --block 64 --dtype int64 --scalar --scan-op min --initial-value 7 "
      "--aggregate-output");
  ASSERT_EQ(scalar.exit_code, 0) << scalar.output;
  EXPECT_NE(scalar.output.find("initial_value: STATIC 7"), std::string::npos) << scalar.output;
  EXPECT_NE(scalar.output.find("aggregate_output: RUNTIME"), std::string::npos);
  EXPECT_NE(scalar.output.find("payload: scalar"), std::string::npos);
  const auto items = coop("explain inclusive_sum --group block:32,4 --items 4 --algorithm warp_scans");
  ASSERT_EQ(items.exit_code, 0) << items.output;
  EXPECT_NE(items.output.find("InclusiveSum(value, result)"), std::string::npos) << items.output;
  const auto chosen = coop("explain scan --group block:32,4 --items 4 --mode inclusive --scan-op max");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.output;
  EXPECT_NE(chosen.output.find("InclusiveScan(value, result, ::cuda::maximum<>{})"), std::string::npos)
      << chosen.output;
  const auto warp = coop("explain segmented_reduce --group warp --block 64 --scalar --binary-op sum --flags tails");
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
        BadInput{"explain lod", "'operation' = 'lod' is not allowed; expected one of: "},
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
        BadInput{"explain reduce --binary-op median", "'binary_op' = 'median'"},
        BadInput{"explain reduce --dtype float32 --binary-op bit_xor", "'binary_op' = 'bit_xor' on float32"},
        BadInput{"explain exclusive_scan --scan-op max", "'initial_value' = omitted"},
        BadInput{"explain scan --mode inclusive --initial-value 1", "no initial_value with mode 'inclusive'"},
        BadInput{"explain inclusive_sum --items 4 --valid-items", "an overload CUB does not have"},
        BadInput{"explain segmented_reduce --scalar", "'group' = block(128,1,1)"},
        BadInput{"explain segmented_reduce --group warp --scalar --flags middle", "'flags' = 'middle'"},
        BadInput{"explain exclusive_scan --scan-op sum --initial-value 2.5", "'initial_value' = '2.5'"},
        BadInput{"explain broadcast --group warp --scalar --src-lane 32", "'src_lane' = 32"},
        BadInput{"explain sum --scalar --items 2", "'items_per_thread' = 2"},
        BadInput{"explain load --offset -5", "'offset' = -5 is not allowed; expected an integer element offset >= 0"},
        BadInput{"explain load --items 513", "'items_per_thread' = 513 is not allowed; expected at most 512"},
        BadInput{"explain load --items 2147483647 --valid-items 5", "'items_per_thread' = 2147483647"},
        BadInput{"explain load --items 99999999999", "'--items' = '99999999999'"},
        BadInput{"explain exclusive_scan --scan-op max --initial-value -inf", "'initial_value' = '-inf'"},
        BadInput{"explain load --dtype float16 --valid-items --oob-default 1e6", "largest finite 65504"},
        BadInput{"explain load --group block:64 --block 64", "'--block' = '64'"},
        BadInput{"explain load --group", "argument '--group' needs a value; expected block:X"},
        BadInput{"compile load --arch sm_999", "'arch' = 'sm_999' is not allowed; expected an arch NVRTC"},
        BadInput{"compile load -o ''", "argument '-o' = ''"},
        BadInput{"compile load -o x.ltoir --header ./x.ltoir", "a file other than -o's ('x.ltoir')"},
        BadInput{"cache frob", "coop cache: argument 'subcommand' = 'frob'"},
        BadInput{"link /nonexistent.ltoir -o x.cubin", "'/nonexistent.ltoir' (no such file)"}));

// ---- The call options' flags are generated from the catalog (option_flags.hpp).

TEST(CliFlags, EveryCatalogOptionHasAFlagOfItsKind) {
  const std::string help = coop("explain --help").output;
  for (const auto& operation : catalog()) {
    for (const auto& option : operation.options) {
      const cli::OptionFlag* flag = cli::find_option_flag(option.name);
      ASSERT_NE(flag, nullptr) << operation.name << ": " << option.name;
      // A name two array kinds share is one switch (catalog_test), its help naming both.
      EXPECT_TRUE(flag->type == option.type || flag->value == cli::FlagValue::None) << option.name;
      EXPECT_EQ(flag->value, cli::flag_value(option.type)) << option.name;
      EXPECT_NE(help.find("  " + flag->flag + " "), std::string::npos) << flag->flag << "\n" << help;
    }
  }
}

TEST(CliFlags, KeepTheSpellingsTheyHad) {
  const std::map<std::string, std::string> spellings = {{"algorithm", "--algorithm"},
                                                        {"valid_items", "--valid-items"},
                                                        {"oob_default", "--oob-default"},
                                                        {"offset", "--offset"},
                                                        {"binary_op", "--binary-op"},
                                                        {"scan_op", "--scan-op"},
                                                        {"initial_value", "--initial-value"},
                                                        {"src_lane", "--src-lane"},
                                                        {"flags", "--flags"},
                                                        {"prefix_op", "--prefix-op"},
                                                        {"aggregate_output", "--aggregate-output"},
                                                        {"mode", "--mode"}};
  for (const auto& [option, spelling] : spellings) {
    const cli::OptionFlag* flag = cli::find_option_flag(option);
    ASSERT_NE(flag, nullptr) << option;
    EXPECT_EQ(flag->flag, spelling);
  }
  std::set<std::string> seen = {"--group", "--block", "--dtype", "--items", "--scalar", "--strided-view", "--opt"};
  for (const auto& flag : cli::option_flags()) EXPECT_TRUE(seen.insert(flag.flag).second) << flag.flag;
}

TEST(CliFlags, OptBindsAnOptionByItsCatalogName) {
  const auto generic =
      coop("explain load --opt valid_items --opt oob_default=-3 --opt offset=16 --opt algorithm=transpose");
  ASSERT_EQ(generic.exit_code, 0) << generic.output;
  for (const char* expected :
       {"valid_items: RUNTIME", "oob_default: STATIC -3", "offset: STATIC 16", "::cub::BLOCK_LOAD_TRANSPOSE"}) {
    EXPECT_NE(generic.output.find(expected), std::string::npos) << expected << "\n" << generic.output;
  }
  EXPECT_EQ(generic.output,
            coop("explain load --valid-items --oob-default -3 --offset 16 --algorithm transpose").output);
  const auto outputs = coop("explain inclusive_sum --group block:32,4 --items 4 --opt aggregate_output");
  ASSERT_EQ(outputs.exit_code, 0) << outputs.output;
  EXPECT_NE(outputs.output.find("InclusiveSum(value, result, aggregate_output)"), std::string::npos) << outputs.output;
  EXPECT_EQ(outputs.output, coop("explain inclusive_sum --group block:32,4 --items 4 --aggregate-output").output);
}

INSTANTIATE_TEST_SUITE_P(
    OptionsGivenTwiceOrByName, CliRejects,
    ::testing::Values(
        BadInput{"explain reduce --binary-op max --binary-op min",
                 "argument '--binary-op' is given more than once; expected one value"},
        BadInput{"explain load --valid-items 3 --valid-items", "argument '--valid-items' is given more than once"},
        BadInput{"explain reduce --binary-op max --opt binary_op=min",
                 "argument '--opt' = 'binary_op=min' is not allowed; expected each option once (binary_op is given "
                 "already"},
        BadInput{"explain reduce --opt binary_op=max --opt binary_op=min",
                 "argument '--opt' = 'binary_op=min' is not allowed"},
        BadInput{"explain load --opt frob=1",
                 "argument '--opt' = 'frob=1' is not allowed; expected name or name=value, the name one of: "},
        BadInput{"explain load --opt", "argument '--opt' needs a value"},
        BadInput{"explain reduce --opt binary_op", "'binary_op' = a runtime value is not allowed"},
        BadInput{"explain inclusive_sum --opt aggregate_output=x",
                 "'aggregate_output' = a compile-time constant is not allowed"},
        BadInput{"compile load --call \"reduce --opt binary_op=max --opt binary_op=sum\"",
                 "'--opt' = 'binary_op=sum'"}));

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

// A .ptx file holds no terminating NUL; beside LTO-IR (a link under -lto) nvJitLink refused it as
// NVJITLINK_ERROR_INCORRECT_INPUT_TYPE until the link added one.
TEST(Cli, LinksPtxBesideLtoIr) {
  testing::TempDir dir;
  const std::string in_dir = "cd " + dir.path().string() + " && CUDA_COOP_ENABLE_CACHE=0";
  testing::write_text(dir.path() / "scale.cu", "extern \"C\" __global__ void coop_scale(float* x) { x[0] *= 2; }\n");
  const auto nvcc = testing::run_command("cd " + dir.path().string() + " && " + COOP_NVCC +
                                         " -arch=sm_90 -ptx scale.cu -o scale.ptx");
  ASSERT_EQ(nvcc.exit_code, 0) << nvcc.output;
  const auto compiled = coop("compile load -o bundle.ltoir", in_dir);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  const auto linked = coop("link bundle.ltoir scale.ptx -o out.cubin", in_dir);
  EXPECT_EQ(linked.exit_code, 0) << linked.output;
  const std::vector<char> cubin = testing::read_bytes(dir.path() / "out.cubin");
  const std::string kernel = "coop_scale";
  EXPECT_NE(std::search(cubin.begin(), cubin.end(), kernel.begin(), kernel.end()), cubin.end());
}

TEST(Cli, WriteErrorsShowAfterTheFlush) {
  const auto result = coop("compile load --header /dev/full", "CUDA_COOP_ENABLE_CACHE=0");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("argument '--header' = '/dev/full' (No space left on device)"), std::string::npos)
      << result.output;
}

TEST(Cli, NegativeNumbersAreValues) {
  const auto result = coop("explain exclusive_scan --dtype float32 --scan-op max --initial-value -inf");
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
    calls += std::string(" --call \"exclusive_scan --dtype ") + dtype + " --scan-op max --initial-value=-inf\"";
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

// ---- Cache and environment faults: the command still does its work, with one warning each.

namespace fs = std::filesystem;

bool has(const testing::CommandResult& result, const std::string& fragment) {
  return result.output.find(fragment) != std::string::npos;
}

std::string cache_home(const testing::TempDir& dir) { return "XDG_CACHE_HOME=" + dir.path().string(); }

// The case the issue reported: every cache miss aborted in temp_directory_path().
TEST(CliFaults, TmpdirThatIsNowhereStillCompiles) {
  const auto result = coop("compile load --items 7 --arch sm_90", "TMPDIR=/nowhere CUDA_COOP_ENABLE_CACHE=0");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(has(result, "bundle for sm_90")) << result.output;
  EXPECT_EQ(testing::count_lines_with(result.output, "TMPDIR='/nowhere' is not usable"), 1u) << result.output;
  EXPECT_TRUE(has(result, "expected a writable directory")) << result.output;
}

TEST(CliFaults, BadEnvironmentValuesWarnOnceEach) {
  testing::TempDir dir;
  testing::write_text(dir.path() / "a-file", "");
  const std::string file = (dir.path() / "a-file").string();
  const auto result = coop("explain load --items 1",
                           cache_home(dir) +
                               " CUDA_COOP_PCH=sometimes CUDA_COOP_LOG=plan,chatty CUDA_COOP_ENABLE_CACHE=maybe "
                               "CUDA_HOME=/nowhere CUDA_PATH=" +
                               file);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const std::string& warning :
       {std::string(
            "CUDA_COOP_PCH='sometimes' is not accepted; expected one of background, always, after_first, never"),
        std::string("CUDA_COOP_LOG='plan,chatty' is not accepted; expected a comma-separated list of plan, compile, "
                    "cache, progress, traceback, all"),
        std::string("CUDA_COOP_ENABLE_CACHE='maybe' is not accepted; expected 1, true, yes or on"),
        std::string("CUDA_HOME='/nowhere' is not usable"),
        "CUDA_PATH='" + file + "' is not usable (not a directory)"}) {
    EXPECT_EQ(testing::count_lines_with(result.output, warning), 1u) << warning << "\n" << result.output;
  }
  EXPECT_TRUE(has(result, "[cuda.coop plan]")) << result.output;  // the words it knows still count
  EXPECT_TRUE(has(result, "== generated C++")) << result.output;
}

TEST(CliFaults, SourceDumpDirThatIsAFileWarnsEvenOnACacheHit) {
  testing::TempDir dir;
  testing::write_text(dir.path() / "dumps", "");
  const std::string dumps = (dir.path() / "dumps").string();
  ASSERT_EQ(coop("compile load --items 1 --arch sm_90", cache_home(dir)).exit_code, 0);
  const auto hit =
      coop("compile load --items 1 --arch sm_90 --json", cache_home(dir) + " CUDA_COOP_SOURCE_DUMP_DIR=" + dumps);
  ASSERT_EQ(hit.exit_code, 0) << hit.output;
  EXPECT_EQ(testing::count_lines_with(hit.output, "CUDA_COOP_SOURCE_DUMP_DIR='" + dumps + "' cannot take source dumps"),
            1u)
      << hit.output;
  EXPECT_FALSE(has(hit, "provider cache")) << hit.output;
  const auto report = nlohmann::json::parse(hit.output.substr(hit.output.find("\n{") + 1));  // after the warning
  EXPECT_EQ(report["cache"], "disk hit");
  EXPECT_EQ(report["source_dump"], "");
}

TEST(CliFaults, DirectoryAtEntryPathCompilesWithOneWarning) {
  testing::TempDir dir;
  const auto first = coop("compile load --items 1 --dtype int16 --arch sm_90 --json", cache_home(dir));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string key = nlohmann::json::parse(first.output)["cache_key"];
  const fs::path entry = dir.path() / "cccl" / "coop" / key.substr(0, 2) / (key + ".entry");
  ASSERT_TRUE(fs::remove(entry));
  fs::create_directory(entry);
  const auto second = coop("compile load --items 1 --dtype int16 --arch sm_90", cache_home(dir));
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_TRUE(has(second, "cache miss")) << second.output;
  EXPECT_EQ(testing::count_lines_with(second.output, "warning:"), 1u) << second.output;
  EXPECT_TRUE(has(second, "'" + entry.string() + "' is a directory, not a regular file")) << second.output;
}

TEST(CliFaults, CacheRootOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  testing::TempDir dir;
  const fs::path root = dir.path() / "cccl" / "coop";
  fs::create_directories(root);
  ASSERT_EQ(::chown(root.c_str(), 65534, 65534), 0);
  const auto result = coop("compile load --items 1 --dtype uint16 --arch sm_90", cache_home(dir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(has(result, "'" + root.string() + "' belongs to uid 65534")) << result.output;
  EXPECT_TRUE(fs::is_empty(root));
}

// Entries are named by key; clear() goes by the name, so these need no compile.
void fake_entries(const fs::path& root, std::initializer_list<char> first_digits) {
  for (const char digit : first_digits) {
    const std::string key(64, digit);
    fs::create_directories(root / key.substr(0, 2));
    testing::write_text(root / key.substr(0, 2) / (key + ".entry"), "not checked by clear");
  }
}

TEST(CliFaults, CacheClearRemovesWhatItCanAndNamesTheRest) {
  testing::TempDir dir;
  const fs::path root = dir.path() / "cccl" / "coop";
  fake_entries(root, {'a', 'b'});
  const fs::path stuck = root / "cc" / (std::string(64, 'c') + ".entry");
  fs::create_directories(stuck / "inside");
  const auto result = coop("cache clear", cache_home(dir));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(has(result, "removed 2 entries")) << result.output;
  EXPECT_TRUE(has(result, "coop: CacheError: coop cache clear: could not remove 1 file(s)")) << result.output;
  EXPECT_TRUE(has(result, "'" + stuck.string() + "': Directory not empty")) << result.output;
  EXPECT_FALSE(fs::exists(root / "aa" / (std::string(64, 'a') + ".entry")));
}

TEST(CliFaults, CacheClearJsonReportsFailuresAsJson) {
  testing::TempDir dir;
  const fs::path root = dir.path() / "cccl" / "coop";
  fake_entries(root, {'d'});
  const fs::path stuck = root / "ee" / (std::string(64, 'e') + ".entry");
  fs::create_directories(stuck / "inside");
  const auto result = coop("cache clear --json", cache_home(dir));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const auto report = nlohmann::json::parse(result.output);
  EXPECT_EQ(report["removed"], 1);
  ASSERT_EQ(report["failed"].size(), 1u);
  EXPECT_EQ(report["failed"][0]["path"], stuck.string());
  EXPECT_EQ(report["failed"][0]["reason"], "Directory not empty");
  EXPECT_EQ(report["error"]["kind"], "CacheError");
  fs::remove_all(stuck);
  const auto clean = coop("cache clear --json", cache_home(dir));
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_FALSE(nlohmann::json::parse(clean.output).contains("error"));
}

TEST(CliFaults, CacheStatsErrorsAreJsonWithJson) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "cccl");
  testing::write_text(dir.path() / "cccl" / "coop", "a file where the cache directory belongs");
  const auto json = coop("cache stats --json", cache_home(dir));
  EXPECT_EQ(json.exit_code, 1) << json.output;
  const auto report = nlohmann::json::parse(json.output);
  EXPECT_EQ(report["error"]["kind"], "CacheError");
  EXPECT_NE(report["error"]["message"].get<std::string>().find((dir.path() / "cccl" / "coop").string()),
            std::string::npos);
  const auto text = coop("cache stats", cache_home(dir));
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_TRUE(has(text, "coop: CacheError: provider cache: cannot list '")) << text.output;
}

TEST(CliFaults, CacheJsonStaysJsonForPathsThatAreNotUtf8) {
  testing::TempDir dir;
  const std::string odd = (dir.path() / "\xff").string();
  testing::write_text(odd, "");  // a file: the cache root under it cannot be listed
  const auto result = coop("cache stats --json", "XDG_CACHE_HOME='" + odd + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const auto report = nlohmann::json::parse(result.output);
  EXPECT_EQ(report["error"]["kind"], "CacheError");
  EXPECT_NE(report["error"]["message"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD
}

TEST(CliFaults, DoctorDescribesAnUnusableCacheInsteadOfFailing) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "cccl");
  testing::write_text(dir.path() / "cccl" / "coop", "");
  const auto result = coop("doctor", cache_home(dir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(has(result, "(unusable: provider cache: cannot list '" + (dir.path() / "cccl" / "coop").string()))
      << result.output;
}

}  // namespace
}  // namespace coop
