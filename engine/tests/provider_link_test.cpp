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

std::vector<char> nvcc_fatbin(const std::string& source, const Toolkit& toolkit, const testing::TempDir& dir,
                              const std::string& stem = "kernel") {
  const auto cu = dir.path() / (stem + ".cu");
  const auto fatbin = dir.path() / (stem + ".fatbin");
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

// A user operator as the kernel compiler would provide it: an extern "C" device function in the
// Numba ABI, compiled to LTO-IR on its own. "First non-zero" is associative, not commutative.
const char* kUserOperatorSource =
    "extern \"C\" __device__ float first_nonzero(float a, float b) {\n"
    "  return a != 0.0f ? a : b;\n}\n";

Bundle user_operator_bundle(Engine& engine) {
  CallFacts scan{"inclusive_scan", Group::this_block({128, 1, 1}), DType::Float32, 4, {}, ""};
  scan.options = {{"scan_op", OptionBinding::fixed("user:first_nonzero")},
                  {"algorithm", OptionBinding::fixed("raking")},
                  {"aggregate_output", OptionBinding::runtime()}};
  CallFacts reduce{"reduce", Group::this_warp({128, 1, 1}, 8), DType::Float32, 1, {}, ""};
  reduce.payload = PayloadKind::Scalar;
  reduce.options = {{"binary_op", OptionBinding::fixed("user:first_nonzero")}};
  return engine.compile({engine.plan(scan), engine.plan(reduce)}, "sm_90");
}

// Scans a tile into a fresh array, then reduces each thread's first item across its 8-lane warp.
std::string user_operator_kernel(const Bundle& bundle) {
  const Provider& scan = bundle.providers[0];
  const Provider& reduce = bundle.providers[1];
  const std::size_t scratch = std::max(scan.scratch_bytes_per_block(), reduce.scratch_bytes_per_block());
  const std::size_t alignment = std::max(scan.scratch.alignment, reduce.scratch.alignment);
  return "#include <cuda/std/cstdint>\n" + declaration(scan) + "\n" + declaration(reduce) + "\n" +
         "extern \"C\" __global__ void first_nonzero_scan(float* data, float* aggregates, float* firsts) {\n"
         "  __shared__ __align__(" +
         std::to_string(alignment) + ") unsigned char scratch[" + std::to_string(scratch) +
         "];\n"
         "  float items[4], scanned[4];\n  float aggregate, first;\n"
         "  for (int i = 0; i < 4; ++i) items[i] = data[threadIdx.x * 4 + i];\n"
         "  " +
         scan.symbol +
         "(nullptr, items, scanned, &aggregate, scratch);\n"
         "  __syncthreads();\n"
         "  " +
         reduce.symbol +
         "(&first, scanned[0], scratch);\n"
         "  for (int i = 0; i < 4; ++i) data[threadIdx.x * 4 + i] = scanned[i];\n"
         "  if (threadIdx.x == 0) *aggregates = aggregate;\n"
         "  if (threadIdx.x % 8 == 0) firsts[threadIdx.x / 8] = first;\n"
         "}\n";
}

TEST(ProviderLink, UserOperatorLinksFromItsOwnLtoIr) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Bundle bundle = user_operator_bundle(engine);
  for (const Provider& provider : bundle.providers) {
    ASSERT_EQ(provider.external_functions.size(), 1u);
    EXPECT_EQ(provider.external_functions[0].symbol, "first_nonzero");
    EXPECT_EQ(provider.external_functions[0].declaration,
              "extern \"C\" __device__ float first_nonzero(float a, float b);");
  }
  EXPECT_FALSE(bundle.providers[0].result.has_value());  // a ThreadData scan writes its fresh result array
  ASSERT_TRUE(bundle.providers[1].result.has_value());   // a reduction returns through ret
  EXPECT_EQ(bundle.providers[1].result->cpp_type, "float");

  const std::vector<char> op = nvcc_fatbin(kUserOperatorSource, engine.toolkit(), dir, "first_nonzero");
  const std::vector<char> kernel = nvcc_fatbin(user_operator_kernel(bundle), engine.toolkit(), dir);
  const LinkResult linked = link(engine.toolkit(),
                                 {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"},
                                  {LinkInputKind::LtoIr, bundle.ltoir, "providers.ltoir"},
                                  {LinkInputKind::Fatbin, op, "first_nonzero.fatbin"}},
                                 "sm_90");
  ASSERT_GE(linked.cubin.size(), 4u);
  EXPECT_EQ(std::string(linked.cubin.data(), 4),
            "\x7f"
            "ELF");
  // Link-time optimization inlines the operator into the providers: no call to it remains.
  const std::string cubin(linked.cubin.begin(), linked.cubin.end());
  EXPECT_NE(cubin.find(std::string("first_nonzero_scan")), std::string::npos);
  EXPECT_EQ(cubin.find(std::string("\0first_nonzero\0", 15)), std::string::npos);
}

TEST(ProviderLink, UserOperatorMissingAtLinkTimeIsNamed) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Bundle bundle = user_operator_bundle(engine);
  const std::vector<char> kernel = nvcc_fatbin(user_operator_kernel(bundle), engine.toolkit(), dir);
  try {
    link(engine.toolkit(),
         {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"}, {LinkInputKind::LtoIr, bundle.ltoir, "providers.ltoir"}},
         "sm_90");
    FAIL() << "linked providers whose user operator was never supplied";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Link);
    EXPECT_NE(std::string(error.what()).find("first_nonzero"), std::string::npos) << error.what();
  }
}

// CUB's block prefix callback over state the kernel owns: a running total.
const char* kPrefixCallbackSource =
    "extern \"C\" __device__ long long running_total(void* state, long long block_aggregate) {\n"
    "  long long* total = static_cast<long long*>(state);\n"
    "  const long long before = *total;\n  *total = before + block_aggregate;\n  return before;\n}\n";

TEST(ProviderLink, PrefixCallbackLinksWithItsStateFromTheKernel) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  CallFacts scan{"inclusive_sum", Group::this_block({128, 1, 1}), DType::Int64, 4, {}, ""};
  scan.options = {{"prefix_op", OptionBinding::fixed("user:running_total")}};
  const Bundle bundle = engine.compile({engine.plan(scan)}, "sm_90");
  const Provider& provider = bundle.providers[0];
  ASSERT_EQ(provider.external_functions.size(), 1u);
  EXPECT_EQ(provider.external_functions[0].declaration,
            "extern \"C\" __device__ ::cuda::std::int64_t running_total(void* state, ::cuda::std::int64_t "
            "block_aggregate);");
  // A loop over tiles carrying the running total in each thread's own state.
  const std::string kernel_source =
      "#include <cuda/std/cstdint>\n" + declaration(provider) +
      "\nextern \"C\" __global__ void running_prefix(long long* data, int tiles) {\n"
      "  __shared__ __align__(" +
      std::to_string(provider.scratch.alignment) + ") unsigned char scratch[" +
      std::to_string(provider.scratch_bytes_per_block()) +
      "];\n"
      "  long long total = 0;\n"
      "  for (int tile = 0; tile < tiles; ++tile) {\n"
      "    long long items[4], scanned[4];\n"
      "    for (int i = 0; i < 4; ++i) items[i] = data[tile * 512 + threadIdx.x * 4 + i];\n"
      "    " +
      provider.symbol +
      "(nullptr, items, scanned, &total, scratch);\n"
      "    __syncthreads();\n"
      "    for (int i = 0; i < 4; ++i) data[tile * 512 + threadIdx.x * 4 + i] = scanned[i];\n"
      "  }\n}\n";
  const std::vector<char> callback = nvcc_fatbin(kPrefixCallbackSource, engine.toolkit(), dir, "running_total");
  const std::vector<char> kernel = nvcc_fatbin(kernel_source, engine.toolkit(), dir);
  const LinkResult linked = link(engine.toolkit(),
                                 {{LinkInputKind::Fatbin, kernel, "kernel.fatbin"},
                                  {LinkInputKind::LtoIr, bundle.ltoir, "providers.ltoir"},
                                  {LinkInputKind::Fatbin, callback, "running_total.fatbin"}},
                                 "sm_90");
  const std::string cubin(linked.cubin.begin(), linked.cubin.end());
  EXPECT_NE(cubin.find("running_prefix"), std::string::npos);
  // Inlined by link-time optimization: no function of that name remains.
  EXPECT_EQ(cubin.find(std::string("\0running_total\0", 15)), std::string::npos);
}

}  // namespace
}  // namespace coop
