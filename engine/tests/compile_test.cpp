// Real NVRTC compiles: a CUB wrapper to LTO-IR with its scratch layout, failures carrying the log,
// and the precompiled-header policy. Sources without CUB keep most tests well under a second.
#include "coop/compile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "coop/engine.hpp"
#include "coop/error.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

const Toolkit& toolkit() {
  static const Toolkit located = Toolkit::locate(ToolkitSearch::from_environment());
  return located;
}

constexpr const char* kProbeDeclaration = R"(
namespace coop_probe {
template <unsigned long long Bytes, unsigned long long Align>
__device__ char layout;
}  // namespace coop_probe
)";

const std::string kBlockLoadSource = std::string(R"(
#include <cub/block/block_load.cuh>

using Load = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;

extern "C" __device__ void coop_block_load(const int* src, int* items, void* temp) {
  Load(*static_cast<Load::TempStorage*>(temp)).Load(src, *reinterpret_cast<int(*)[4]>(items));
}
)") + kProbeDeclaration;

constexpr const char* kBlockLoadProbe = "&coop_probe::layout<sizeof(Load::TempStorage), alignof(Load::TempStorage)>";

const std::string kSmallSource = std::string(R"(
struct Triple { double values[3]; };
struct alignas(64) Line { char bytes[40]; };
extern "C" __device__ int coop_small(int x) { return x + 1; }
)") + kProbeDeclaration;

CompileRequest small_request() {
  return {kSmallSource, "sm_90", {"&coop_probe::layout<sizeof(Triple), alignof(Triple)>"}, ""};
}

// A compile that must fail; returns the error it raised.
Error compile_error(const CompileRequest& request) {
  Compiler compiler(toolkit(), PchPolicy::Never);
  try {
    compiler.compile(request);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "the compile succeeded";
  return Error(ErrorKind::ProviderCompile, "");
}

TEST(Compile, CubBlockLoadBecomesLtoIrWithItsScratchLayout) {
  Compiler compiler(toolkit(), PchPolicy::Always);
  const CompileRequest request{kBlockLoadSource, "sm_90", {"", kBlockLoadProbe}, ""};
  const CompileResult created = compiler.compile(request);
  const CompileResult reused = compiler.compile(request);

  EXPECT_FALSE(created.ltoir.empty());
  // TRANSPOSE stages the tile in a BlockExchange buffer: 128 threads x 4 ints, no bank padding at
  // 4 items per thread, aligned to 16 (confirmed by static_assert under nvcc -arch=sm_90).
  EXPECT_EQ(created.layouts, (std::vector<Layout>{{0, 0}, {2048, 16}}));
  EXPECT_TRUE(created.used_pch);
  EXPECT_GT(created.seconds, 0);
  // The precompiled header changes the cost, never the product.
  EXPECT_EQ(reused.ltoir, created.ltoir);
  EXPECT_EQ(reused.layouts, created.layouts);
}

TEST(Compile, ProbesReportSizeAndAlignmentOfEachType) {
  Compiler compiler(toolkit(), PchPolicy::Never);
  CompileRequest request = small_request();
  request.layout_probes = {"&coop_probe::layout<sizeof(Line), alignof(Line)>", "",
                           "&coop_probe::layout<sizeof(Triple), alignof(Triple)>"};
  const CompileResult result = compiler.compile(request);
  EXPECT_EQ(result.layouts, (std::vector<Layout>{{64, 64}, {0, 0}, {24, 8}}));
  EXPECT_FALSE(result.ltoir.empty());
}

TEST(Compile, ProbeOfAnotherShapeIsAnError) {
  CompileRequest request = small_request();
  request.source += "namespace coop_probe { template <int N> __device__ char other; }\n";
  request.layout_probes = {"&coop_probe::other<3>"};
  const Error error = compile_error(request);
  EXPECT_EQ(error.kind(), ErrorKind::ProviderCompile);
  const std::string message = error.what();
  EXPECT_NE(message.find("&coop_probe::other<3>"), std::string::npos) << message;
  EXPECT_NE(message.find("_ZN10coop_probe5otherILi3EEE"), std::string::npos) << message;
}

TEST(Compile, FailureCarriesTheLogAndTheDumpedSource) {
  CompileRequest request = small_request();
  request.source += "__device__ int broken() { return undefined_name; }\n";
  request.dump_path = "/tmp/coop-dump/bundle-1234.cu";
  const Error error = compile_error(request);
  EXPECT_EQ(error.kind(), ErrorKind::ProviderCompile);
  const std::string message = error.what();
  EXPECT_NE(message.find("\"undefined_name\" is undefined"), std::string::npos) << message;
  EXPECT_NE(message.find("generated source: /tmp/coop-dump/bundle-1234.cu"), std::string::npos) << message;
  EXPECT_NE(message.find("-arch=sm_90"), std::string::npos) << message;
}

TEST(Compile, FailureWithoutADumpSaysHowToGetOne) {
  CompileRequest request = small_request();
  request.source += "this is not C++\n";
  const Error error = compile_error(request);
  EXPECT_EQ(error.kind(), ErrorKind::ProviderCompile);
  EXPECT_NE(std::string(error.what()).find("CUDA_COOP_SOURCE_DUMP_DIR"), std::string::npos) << error.what();
}

TEST(Compile, PchPolicyDecidesPerCompile) {
  Compiler never(toolkit(), PchPolicy::Never);
  Compiler always(toolkit(), PchPolicy::Always);
  Compiler after_first(toolkit(), PchPolicy::AfterFirst);
  Compiler background(toolkit(), PchPolicy::Background);
  EXPECT_FALSE(never.compile(small_request()).used_pch);
  EXPECT_FALSE(never.compile(small_request()).used_pch);
  EXPECT_TRUE(always.compile(small_request()).used_pch);
  EXPECT_FALSE(after_first.compile(small_request()).used_pch);
  EXPECT_TRUE(after_first.compile(small_request()).used_pch);
  EXPECT_FALSE(background.compile(small_request()).used_pch);
  EXPECT_TRUE(background.compile(small_request()).used_pch);
}

TEST(Compile, BackgroundPchIsReadyForTheSecondCompile) {
  Compiler compiler(toolkit(), PchPolicy::Background);
  const CompileRequest request{kBlockLoadSource, "sm_90", {"", kBlockLoadProbe}, ""};
  const CompileResult first = compiler.compile(request);
  EXPECT_FALSE(first.used_pch);
  Compiler::wait_for_background_pch();
  const CompileResult second = compiler.compile(request);
  EXPECT_TRUE(second.used_pch);
  EXPECT_FALSE(second.created_pch) << "the background thread should have created the PCH for these headers";
  EXPECT_EQ(second.ltoir, first.ltoir);
  EXPECT_EQ(second.layouts, first.layouts);
}

TEST(Compile, AlwaysCreatesThePchOnTheFirstCompile) {
  // An include prefix of its own: another test in this process may have made a PCH for another.
  CompileRequest request = small_request();
  request.source = "#include <cuda/std/climits>\n" + request.source;
  Compiler compiler(toolkit(), PchPolicy::Always);
  EXPECT_TRUE(compiler.compile(request).created_pch);
  EXPECT_FALSE(compiler.compile(request).created_pch);
}

TEST(Compile, IncludePrefixIsWhatNvrtcPrecompiles) {
  EXPECT_EQ(include_prefix("// a comment\n#include <a.h>\n\n  // more\n#include <b.h>\nint x;\n#include <c.h>\n"),
            "#include <a.h>\n#include <b.h>\n");
  EXPECT_EQ(include_prefix("int x;\n#include <a.h>\n"), "");
  EXPECT_EQ(include_prefix("#include <a.h>"), "#include <a.h>");
}

TEST(Compile, OptionsAreTheDocumentedMinimum) {
  const Compiler compiler(toolkit(), PchPolicy::Never);
  const std::vector<std::string> expected = {"-std=c++17",
                                             "-rdc=true",
                                             "-dlto",
                                             "-arch=sm_90",
                                             "-D_CCCL_META_UNROLL_LIMIT=10",
                                             "-I" + toolkit().cccl_include,
                                             "-I" + toolkit().cuda_include};
  EXPECT_EQ(compiler.options("sm_90", false), expected);
  std::vector<std::string> with_pch = expected;
  with_pch.push_back("-pch");
  EXPECT_EQ(compiler.options("sm_90", true), with_pch);
}

TEST(Compile, ArchMustBeSmWithTwoOrThreeDigits) {
  EXPECT_EQ(parse_arch("sm_90", "compile"), 90);
  EXPECT_EQ(parse_arch("sm_100", "compile"), 100);
  for (const char* bad : {"", "sm_9", "sm_1000", "sm90", "compute_90", "sm_90a", " sm_90"}) {
    try {
      parse_arch(bad, "compile");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(error.what()).find("sm_<major><minor>, e.g. sm_90"), std::string::npos) << error.what();
    }
  }
  CompileRequest request = small_request();
  request.arch = "sm90";
  EXPECT_EQ(compile_error(request).kind(), ErrorKind::InvalidArgument);
}

TEST(Compile, ArchesNvrtcCannotTargetAreArgumentErrorsNamingTheSupportedOnes) {
  const std::vector<int> archs = supported_archs(toolkit());
  ASSERT_FALSE(archs.empty());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
  EXPECT_NO_THROW(require_supported_arch(toolkit(), "sm_90", "compile"));
  for (const char* bad : {"sm_10", "sm_999", "sm_91"}) {
    try {
      require_supported_arch(toolkit(), bad, "compile");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& error) {
      EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
      const std::string message = error.what();
      EXPECT_NE(message.find("argument 'arch' = '" + std::string(bad) + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("compiles for: sm_"), std::string::npos) << message;
      EXPECT_NE(message.find("sm_90"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  // The compiler checks before NVRTC would fail with its own four-line log.
  CompileRequest request = small_request();
  request.arch = "sm_999";
  const Error error = compile_error(request);
  EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
}

// The STATIC inf and nan of every float dtype: the emitted expressions compile with NVRTC (once
// __builtin_inf, which NVRTC lacks), and carry the exact bits (read back from nvcc's PTX).
struct SpecialFloat {
  DType dtype;
  std::string text;
  unsigned long long bits;
};

const std::vector<SpecialFloat> kSpecialFloats = {
    {DType::Float16, "inf", 0x7c00},
    {DType::Float16, "-inf", 0xfc00},
    {DType::Float16, "nan", 0x7e00},
    {DType::Float16, "-nan", 0xfe00},
    {DType::BFloat16, "inf", 0x7f80},
    {DType::BFloat16, "-inf", 0xff80},
    {DType::BFloat16, "nan", 0x7fc0},
    {DType::BFloat16, "-nan", 0xffc0},
    {DType::Float32, "inf", 0x7f800000},
    {DType::Float32, "-inf", 0xff800000},
    {DType::Float32, "nan", 0x7fc00000},
    {DType::Float32, "-nan", 0xffc00000},
    {DType::Float32, "-2.5", 0xc0200000},
    {DType::Float64, "inf", 0x7ff0000000000000},
    {DType::Float64, "-inf", 0xfff0000000000000},
    {DType::Float64, "nan", 0x7ff8000000000000},
    {DType::Float64, "-nan", 0xfff8000000000000},
    {DType::Float64, "1e300", 0x7e37e43c8800759c},
};

CallFacts load_with_default(DType dtype, const std::string& text) {
  return {"load",
          Group::this_block({128, 1, 1}),
          dtype,
          2,
          {{"valid_items", OptionBinding::runtime()}, {"oob_default", OptionBinding::fixed(text)}},
          ""};
}

TEST(Compile, StaticInfinitiesAndNansCompileWithNvrtc) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  std::vector<Plan> plans;
  for (const SpecialFloat& value : kSpecialFloats)
    plans.push_back(engine.plan(load_with_default(value.dtype, value.text)));
  for (const DType dtype : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    CallFacts scan{"exclusive_scan", Group::this_block({128, 1, 1}), dtype, 2, {}, ""};
    scan.options = {{"scan_op", OptionBinding::fixed("max")}, {"initial_value", OptionBinding::fixed("-inf")}};
    plans.push_back(engine.plan(scan));
  }
  const Bundle bundle = engine.compile(plans, "sm_90");
  EXPECT_FALSE(bundle.ltoir.empty());
  EXPECT_EQ(bundle.providers.size(), plans.size());
}

// The expression the generated Load passes as oob_default.
std::string oob_expression(const SpecialFloat& value) {
  const std::string source = emit({plan(load_with_default(value.dtype, value.text))}, {"probe", "sm_90"}).text;
  const std::string prefix = "Load(source, items, valid_items, ";
  const std::size_t start = source.find(prefix) + prefix.size();
  return source.substr(start, source.find(");\n", start) - start);
}

// The one immediate each probe kernel moves: a signed decimal of the value's bits, or 0f/0d hex.
unsigned long long immediate_bits(const std::string& ptx, const std::string& entry, int bytes) {
  const std::size_t at = ptx.find(".entry " + entry + "(");
  if (at == std::string::npos) return 0;
  const std::string body = ptx.substr(at, ptx.find("ret;", at) - at);
  std::smatch match;
  static const std::regex immediate(R"(mov\.[bfsu](?:16|32|64)\s+%\w+,\s*(-?[0-9]+|0[fd][0-9A-Fa-f]+);)");
  if (!std::regex_search(body, match, immediate)) return 0;
  const std::string text = match[1];
  if (text[0] == '0' && (text[1] == 'f' || text[1] == 'd')) return std::stoull(text.substr(2), nullptr, 16);
  const unsigned long long value = static_cast<unsigned long long>(std::stoll(text));
  return bytes == 8 ? value : value & ((1ULL << (8 * bytes)) - 1);
}

TEST(Compile, StaticInfinitiesAndNansHaveTheirExactBits) {
  testing::TempDir dir;
  std::string probe = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
  for (std::size_t i = 0; i < kSpecialFloats.size(); ++i) {
    const SpecialFloat& value = kSpecialFloats[i];
    probe += "extern \"C\" __global__ void probe_" + std::to_string(i) + "(" + std::string(info(value.dtype).cpp) +
             "* out) { *out = " + oob_expression(value) + "; }\n";
  }
  testing::write_text(dir.path() / "probe.cu", probe);
  const auto nvcc =
      testing::run_command(std::string(COOP_NVCC) + " -arch=sm_90 -ptx " + (dir.path() / "probe.cu").string() + " -o " +
                           (dir.path() / "probe.ptx").string());
  ASSERT_EQ(nvcc.exit_code, 0) << nvcc.output << "\n" << probe;
  const std::string ptx = testing::read_text(dir.path() / "probe.ptx");
  for (std::size_t i = 0; i < kSpecialFloats.size(); ++i) {
    const SpecialFloat& value = kSpecialFloats[i];
    EXPECT_EQ(immediate_bits(ptx, "probe_" + std::to_string(i), info(value.dtype).size), value.bits)
        << info(value.dtype).name << " " << value.text << ": " << oob_expression(value);
  }
}

}  // namespace
}  // namespace coop
