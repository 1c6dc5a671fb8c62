// The ABI between generated wrappers and a kernel: a CUDA C++ kernel compiled by
// nvcc calls the providers through plain extern "C" declarations, and the
// engine's nvJitLink joins both LTO-IR inputs into an sm_90 cubin.
#include <gtest/gtest.h>

#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

CallFacts call(const std::string& operation, const std::string& algorithm,
               std::map<std::string, OptionBinding> options = {}) {
  CallFacts facts{operation, Group::this_block({128, 1, 1}), DType::Float32, 4, std::move(options), ""};
  facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  return facts;
}

// A tile copy through the two providers, with the scratch the bundle reports.
std::string kernel_source(const Bundle& bundle) {
  const Provider& load = bundle.providers[0];
  const Provider& store = bundle.providers[1];
  const std::size_t scratch = std::max(load.scratch_bytes_per_block(), store.scratch_bytes_per_block());
  return "#include <cuda/std/cstdint>\n" + declaration(load) + "\n" + declaration(store) + "\n" +
         "extern \"C\" __global__ void tile_copy(float* source, float* destination, long long valid) {\n"
         "  __shared__ __align__(" +
         std::to_string(load.scratch.alignment) + ") unsigned char scratch[" + std::to_string(scratch) +
         "];\n"
         "  float items[4];\n  int status = 0;\n"
         "  long long offset = blockIdx.x * 512LL;\n" +
         "  " + load.symbol +
         "(&status, source, items, valid, -1.0f, offset, scratch);\n"
         "  __syncthreads();\n"
         "  " +
         store.symbol +
         "(&status, destination, items, valid, offset, scratch);\n"
         "}\n";
}

std::vector<char> nvcc_fatbin(const std::string& source, const Toolkit& toolkit, const testing::TempDir& dir) {
  const auto cu = dir.path() / "kernel.cu";
  const auto fatbin = dir.path() / "kernel.fatbin";
  testing::write_text(cu, source);
  const auto result =
      testing::run_command(std::string(COOP_NVCC) + " -std=c++17 -arch=sm_90 -rdc=true -dlto -fatbin -I" +
                           toolkit.cccl_include + " " + cu.string() + " -o " + fatbin.string());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return testing::read_bytes(fatbin);
}

Bundle tile_copy_bundle(Engine& engine) {
  const auto runtime = OptionBinding::runtime();
  return engine.compile({engine.plan(call("load", "transpose",
                                          {{"valid_items", runtime}, {"oob_default", runtime}, {"offset", runtime}})),
                         engine.plan(call("store", "warp_transpose", {{"valid_items", runtime}, {"offset", runtime}}))},
                        "sm_90");
}

TEST(ProviderLink, NvccKernelLinksWithGeneratedProviders) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Bundle bundle = tile_copy_bundle(engine);
  const std::vector<char> kernel = nvcc_fatbin(kernel_source(bundle), engine.toolkit(), dir);
  const LinkResult linked =
      link(engine.toolkit(),
           {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"}, {LinkInputKind::LtoIr, bundle.ltoir, "providers.ltoir"}},
           "sm_90");
  ASSERT_GE(linked.cubin.size(), 4u);
  EXPECT_EQ(std::string(linked.cubin.data(), 4),
            "\x7f"
            "ELF");
}

TEST(ProviderLink, MissingProviderIsALinkErrorNamingTheSymbol) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Bundle bundle = tile_copy_bundle(engine);
  std::string source = kernel_source(bundle);
  const std::string wrong = bundle.providers[1].symbol.substr(0, bundle.providers[1].symbol.size() - 8) + "00000000";
  for (std::size_t at = source.find(bundle.providers[1].symbol); at != std::string::npos;
       at = source.find(bundle.providers[1].symbol, at)) {
    source.replace(at, wrong.size(), wrong);
  }
  const std::vector<char> kernel = nvcc_fatbin(source, engine.toolkit(), dir);
  try {
    link(engine.toolkit(),
         {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"}, {LinkInputKind::LtoIr, bundle.ltoir, "p"}}, "sm_90");
    FAIL() << "linked a call to a provider that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Link);
    EXPECT_NE(std::string(error.what()).find(wrong), std::string::npos) << error.what();
  }
}

TEST(ProviderLink, BundlesSharingASpecializationNeverCollide) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Plan load = engine.plan(call("load", "direct"));
  const Bundle alone = engine.compile({load}, "sm_90");
  const Bundle with_store = engine.compile({load, engine.plan(call("store", "direct"))}, "sm_90");
  ASSERT_NE(alone.providers[0].symbol, with_store.providers[0].symbol);
  const std::string source = "#include <cuda/std/cstdint>\n" + declaration(alone.providers[0]) + "\n" +
                             declaration(with_store.providers[0]) + "\n" +
                             "extern \"C\" __global__ void twice(float* a, float* b) {\n"
                             "  float items[4]; int status;\n"
                             "  " +
                             alone.providers[0].symbol +
                             "(&status, a, items);\n"
                             "  " +
                             with_store.providers[0].symbol +
                             "(&status, b, items);\n"
                             "  a[threadIdx.x] = items[0];\n}\n";
  const std::vector<char> kernel = nvcc_fatbin(source, engine.toolkit(), dir);
  const LinkResult linked = link(engine.toolkit(),
                                 {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"},
                                  {LinkInputKind::LtoIr, alone.ltoir, "alone"},
                                  {LinkInputKind::LtoIr, with_store.ltoir, "with_store"}},
                                 "sm_90");
  EXPECT_FALSE(linked.cubin.empty());
}

}  // namespace
}  // namespace coop
