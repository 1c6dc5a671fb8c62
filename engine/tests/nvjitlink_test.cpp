// Real nvJitLink links: a bundle's LTO-IR from NVRTC joined with a kernel that nvcc compiled
// separately, the way a Python kernel's LTO-IR meets the bundle. No GPU is needed to link.
#include <gtest/gtest.h>

#include "coop/compile.hpp"
#include "coop/error.hpp"
#include "coop/link.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

using coop::testing::read_bytes;
using coop::testing::run_command;
using coop::testing::TempDir;
using coop::testing::write_text;

const Toolkit& toolkit() {
  static const Toolkit located = Toolkit::locate(ToolkitSearch::from_environment());
  return located;
}

constexpr const char* kBundleSource = R"(
#include <cub/block/block_load.cuh>

using Load = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;

extern "C" __device__ void coop_block_load(const int* src, int* items, void* temp) {
  Load(*static_cast<Load::TempStorage*>(temp)).Load(src, *reinterpret_cast<int(*)[4]>(items));
}
)";

constexpr const char* kKernelSource = R"(
extern "C" __device__ void coop_block_load(const int* src, int* items, void* temp);

extern "C" __global__ void coop_test_kernel(const int* in, int* out) {
  __shared__ alignas(16) char temp[2048];
  int items[4];
  coop_block_load(in + blockIdx.x * 512, items, temp);
  for (int i = 0; i < 4; ++i) out[blockIdx.x * 512 + threadIdx.x * 4 + i] = items[i];
}
)";

// The kernel as nvcc leaves it for a later device link: a host object carrying LTO-IR.
LinkInput nvcc_kernel_object(const TempDir& scratch) {
  const auto source = scratch.path() / "kernel.cu";
  const auto object = scratch.path() / "kernel.o";
  write_text(source, kKernelSource);
  const auto nvcc = run_command(std::string(COOP_NVCC) + " -dlto -rdc=true -arch=sm_90 -c " + source.string() + " -o " +
                                object.string());
  EXPECT_EQ(nvcc.exit_code, 0) << nvcc.output;
  return {LinkInputKind::Object, read_bytes(object), "kernel.o"};
}

LinkInput bundle_ltoir() {
  Compiler compiler(toolkit(), PchPolicy::Never);
  return {LinkInputKind::LtoIr, compiler.compile({kBundleSource, "sm_90", {}, ""}).ltoir, "bundle.ltoir"};
}

bool contains(const std::vector<char>& bytes, const std::string& text) {
  return std::search(bytes.begin(), bytes.end(), text.begin(), text.end()) != bytes.end();
}

TEST(NvJitLink, BundleAndNvccKernelLinkToAnSm90Cubin) {
  const TempDir scratch;
  const LinkResult result = link(toolkit(), {nvcc_kernel_object(scratch), bundle_ltoir()}, "sm_90");
  ASSERT_GE(result.cubin.size(), 4u);
  EXPECT_EQ(std::string(result.cubin.begin(), result.cubin.begin() + 4), "\177ELF");
  EXPECT_TRUE(contains(result.cubin, "coop_test_kernel"));
  EXPECT_GT(result.seconds, 0);
}

TEST(NvJitLink, UnresolvedWrapperIsALinkErrorNamingIt) {
  const TempDir scratch;
  try {
    link(toolkit(), {nvcc_kernel_object(scratch)}, "sm_90");
    FAIL() << "linked a kernel whose wrapper is missing";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Link);
    EXPECT_NE(std::string(error.what()).find("coop_block_load"), std::string::npos) << error.what();
  }
}

TEST(NvJitLink, GarbageInputIsALinkError) {
  try {
    link(toolkit(), {{LinkInputKind::LtoIr, {'n', 'o', 't'}, "garbage.ltoir"}}, "sm_90");
    FAIL() << "linked garbage";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Link);
    EXPECT_NE(std::string(error.what()).find("garbage.ltoir"), std::string::npos) << error.what();
  }
}

// nvcc's output for `flags` of a one-kernel file, as the coop command reads it from disk.
std::vector<char> nvcc_output(const TempDir& scratch, const std::string& flags, const std::string& name) {
  const auto source = scratch.path() / "scale.cu";
  write_text(source, "extern \"C\" __global__ void coop_scale(float* x) { x[threadIdx.x] *= 2; }\n");
  const auto output = scratch.path() / name;
  const auto nvcc =
      run_command(std::string(COOP_NVCC) + " " + flags + " " + source.string() + " -o " + output.string());
  EXPECT_EQ(nvcc.exit_code, 0) << nvcc.output;
  return read_bytes(output);
}

std::string refusal(const std::vector<LinkInput>& inputs) {
  try {
    link(toolkit(), inputs, "sm_90", "coop link");
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "linked what nvJitLink would drop or refuse without saying why";
  return "";
}

TEST(NvJitLink, RelocatableCubinForTheTargetLinks) {
  const TempDir scratch;
  const std::vector<char> cubin = nvcc_output(scratch, "-arch=sm_90 -rdc=true -cubin", "scale.cubin");
  const LinkResult result = link(toolkit(), {{LinkInputKind::Cubin, cubin, "scale.cubin"}}, "sm_90");
  EXPECT_TRUE(contains(result.cubin, "coop_scale"));
}

TEST(NvJitLink, CubinForAnotherArchIsRefusedNamingBoth) {
  const TempDir scratch;
  const std::vector<char> cubin = nvcc_output(scratch, "-arch=sm_80 -rdc=true -cubin", "sm80.cubin");
  const std::string message = refusal({{LinkInputKind::Cubin, cubin, "sm80.cubin"}});
  EXPECT_NE(message.find("coop link: argument 'input' = 'sm80.cubin' (a cubin for sm_80)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("a cubin for sm_90"), std::string::npos) << message;
}

TEST(NvJitLink, ExecutableCubinIsRefusedInsteadOfDropped) {
  const TempDir scratch;
  const std::vector<char> cubin = nvcc_output(scratch, "-arch=sm_90 -cubin", "whole.cubin");
  const std::string message = refusal({{LinkInputKind::Cubin, cubin, "whole.cubin"}});
  EXPECT_NE(message.find("'whole.cubin' (an executable cubin)"), std::string::npos) << message;
  EXPECT_NE(message.find("-rdc=true"), std::string::npos) << message;
}

TEST(NvJitLink, ArchIsValidatedBeforeLinking) {
  try {
    link(toolkit(), {}, "sm90");
    FAIL() << "accepted sm90";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
  }
}

}  // namespace
}  // namespace coop
