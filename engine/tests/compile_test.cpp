// Real NVRTC compiles: a CUB wrapper to LTO-IR with its scratch layout, failures carrying the log,
// and the precompiled-header policy. Sources without CUB keep most tests well under a second.
#include "coop/compile.hpp"

#include <gtest/gtest.h>

#include "coop/error.hpp"

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
  EXPECT_FALSE(never.compile(small_request()).used_pch);
  EXPECT_FALSE(never.compile(small_request()).used_pch);
  EXPECT_TRUE(always.compile(small_request()).used_pch);
  EXPECT_FALSE(after_first.compile(small_request()).used_pch);
  EXPECT_TRUE(after_first.compile(small_request()).used_pch);
}

TEST(Compile, OptionsAreTheDocumentedMinimum) {
  const Compiler compiler(toolkit(), PchPolicy::Never);
  const std::vector<std::string> expected = {
      "-std=c++17", "-rdc=true", "-dlto", "-arch=sm_90", "-I" + toolkit().cccl_include, "-I" + toolkit().cuda_include};
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

}  // namespace
}  // namespace coop
