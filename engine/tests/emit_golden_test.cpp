// Generated sources compared with reviewed golden files. After an intended
// codegen change, refresh them with scripts/refresh-golden.sh and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <tuple>

#include "coop/emit.hpp"
#include "coop/error.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

// A fixed identity keeps golden files independent of the machine's toolkit.
const EmitContext kContext{"golden-toolkit", "sm_90"};

CallFacts call(const std::string& operation, Group group, DType dtype, int items, const std::string& algorithm,
               std::map<std::string, OptionBinding> options = {}) {
  CallFacts facts{operation, group, dtype, items, std::move(options), ""};
  if (!algorithm.empty()) facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  return facts;
}

// A call whose memory operand is a strided view of `dimensions`.
CallFacts view_call(CallFacts facts, const std::string& memory, int dimensions) {
  facts.strided_views[memory] = dimensions;
  return facts;
}

// One value per thread; `algorithm` "" on warps, which have none.
CallFacts scalar_call(const std::string& operation, Group group, DType dtype, const std::string& algorithm,
                      std::map<std::string, OptionBinding> options = {}) {
  CallFacts facts = call(operation, group, dtype, 1, algorithm, std::move(options));
  facts.payload = PayloadKind::Scalar;
  return facts;
}

// A run-length decode of int16 runs with uint32 lengths, 2 runs and 3 decoded items per thread,
// its named dtypes given as a front end reads them from the arrays passed.
CallFacts run_length_call(const std::string& operation, std::map<std::string, OptionBinding> options,
                          std::map<std::string, DType> dtypes) {
  CallFacts facts{operation, Group::this_block({64, 1, 1}), DType::Int16, 2, std::move(options), ""};
  facts.options["decoded_items_per_thread"] = OptionBinding::fixed("3");
  facts.dtypes = std::move(dtypes);
  facts.dtypes["LengthT"] = DType::UInt32;
  return facts;
}

struct GoldenCase {
  std::string name;
  std::vector<CallFacts> calls;
};

std::vector<GoldenCase> golden_cases() {
  const Group block128 = Group::this_block({128, 1, 1});
  const auto runtime = OptionBinding::runtime();
  const auto fixed = OptionBinding::fixed;
  return {
      {"tile_copy_direct",
       {call("load", block128, DType::Int32, 2, "direct"), call("store", block128, DType::Int32, 2, "direct")}},
      {"load_transpose_partial_runtime",
       {call("load", Group::this_block({32, 4, 1}), DType::Float32, 4, "transpose",
             {{"valid_items", runtime}, {"oob_default", runtime}, {"offset", runtime}})}},
      {"load_striped_partial_static",
       {call("load", Group::this_block({96, 1, 1}), DType::Float16, 7, "striped",
             {{"valid_items", OptionBinding::fixed("500")},
              {"oob_default", OptionBinding::fixed("-inf")},
              {"offset", OptionBinding::fixed("3")}})}},
      {"store_warp_transpose_timesliced",
       {call("store", Group::this_block({64, 2, 1}), DType::Int64, 3, "warp_transpose_timesliced",
             {{"valid_items", runtime}})}},
      {"warp_load_store_transpose_8_lanes",
       {call("load", Group::this_warp({128, 1, 1}, 8), DType::UInt8, 4, "transpose", {{"valid_items", runtime}}),
        call("store", Group::this_warp({128, 1, 1}, 8), DType::UInt8, 4, "transpose")}},
      {"store_vectorize_unaligned_fallback",
       {call("store", block128, DType::Float32, 4, "vectorize", {{"offset", runtime}}),
        call("store", Group::this_warp({64, 1, 1}, 16), DType::Int8, 8, "vectorize")}},
      {"warp_load_vectorize_bfloat16",
       {call("load", Group::this_warp({32, 1, 1}), DType::BFloat16, 4, "vectorize",
             {{"valid_items", runtime}, {"oob_default", runtime}})}},
      {"load_store_strided_views",
       {view_call(call("load", Group::this_block({16, 16, 1}), DType::Float32, 1, "vectorize",
                       {{"valid_items", runtime}, {"offset", runtime}}),
                  "source", 2),
        view_call(call("store", Group::this_warp({64, 1, 1}, 8), DType::Int16, 4, "vectorize"), "destination", 1)}},
      {"reduce_block_max_raking",
       {call("reduce", block128, DType::Float32, 4, "raking", {{"binary_op", fixed("max")}})}},
      {"reduce_block_scalar_valid_items",
       {scalar_call("sum", Group::this_block({32, 4, 1}), DType::Int32, "warp_reductions", {{"valid_items", runtime}}),
        scalar_call("reduce", Group::this_block({32, 4, 1}), DType::Int64, "raking_commutative_only",
                    {{"binary_op", fixed("min")}, {"valid_items", fixed("100")}})}},
      {"reduce_warp_items_user_operator",
       {call("reduce", Group::this_warp({128, 1, 1}, 8), DType::Float16, 4, "",
             {{"binary_op", fixed("user:first_nonzero")}}),
        scalar_call("sum", Group::this_warp({128, 1, 1}), DType::Float16, "")}},
      {"scan_block_items_initial_value_aggregate",
       {call("exclusive_scan", Group::this_block({96, 1, 1}), DType::Int64, 4, "warp_scans",
             {{"scan_op", fixed("bit_or")}, {"initial_value", fixed("-5")}, {"aggregate_output", runtime}}),
        call("exclusive_sum", Group::this_block({96, 1, 1}), DType::Int64, 4, "raking_memoize")}},
      {"scan_block_scalar_returns_value",
       {scalar_call("exclusive_scan", block128, DType::Float64, "raking",
                    {{"scan_op", fixed("max")}, {"initial_value", runtime}}),
        scalar_call("inclusive_sum", block128, DType::Float64, "raking", {{"aggregate_output", runtime}})}},
      {"scan_block_prefix_callbacks",
       {call("exclusive_scan", Group::this_block({96, 1, 1}), DType::Float16, 4, "warp_scans",
             {{"scan_op", fixed("user:first_nonzero")}, {"prefix_op", fixed("user:running_max")}}),
        scalar_call("inclusive_sum", block128, DType::Int64, "raking", {{"prefix_op", fixed("user:running_total")}})}},
      {"warp_scan_items_bfloat16",
       {call("exclusive_scan", Group::this_warp({64, 1, 1}, 16), DType::BFloat16, 4, "",
             {{"scan_op", fixed("sum")}, {"initial_value", runtime}}),
        call("inclusive_sum", Group::this_warp({64, 1, 1}, 16), DType::BFloat16, 4, "",
             {{"aggregate_output", runtime}})}},
      {"warp_segmented_reduce_and_broadcast",
       {scalar_call("segmented_reduce", Group::this_warp({64, 1, 1}), DType::UInt32, "",
                    {{"binary_op", fixed("bit_xor")}, {"flags", fixed("tails")}}),
        scalar_call("segmented_reduce", Group::this_warp({64, 1, 1}), DType::UInt32, ""),
        scalar_call("broadcast", Group::this_warp({64, 1, 1}, 4), DType::UInt32, "", {{"src_lane", runtime}}),
        scalar_call("broadcast", Group::this_warp({64, 1, 1}), DType::UInt32, "", {{"src_lane", fixed("3")}})}},
      // An index of uint64 taken whole; memory that crosses with its size, a device array as an option.
      {"run_length_index_and_sized_memory",
       {[&] {
          CallFacts window = run_length_call(
              "run_length_decode",
              {{"decoded_window_offset", runtime}, {"relative_offsets", runtime}, {"total_decoded_size", runtime}},
              {{"WindowOffsetT", DType::UInt64}, {"OffsetT", DType::UInt64}});
          window.extents["TOTAL_ITEMS"] = 1;
          return window;
        }(),
        run_length_call("run_length_decode_into", {{"destination_offset", runtime}, {"relative_offsets", runtime}},
                        {{"DestinationOffsetT", DType::Int64}, {"OffsetT", DType::Int32}})}},
  };
}

std::vector<Plan> plans_of(const std::vector<CallFacts>& calls) {
  std::vector<Plan> plans;
  for (const auto& facts : calls) plans.push_back(plan(facts));
  return plans;
}

class EmitGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(EmitGolden, MatchesReviewedSource) {
  const GoldenCase& golden = GetParam();
  const std::string text = emit(plans_of(golden.calls), kContext).text;
  const std::filesystem::path path = std::filesystem::path(COOP_GOLDEN_DIR) / (golden.name + ".cu");
  if (const char* update = std::getenv("COOP_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    testing::write_text(path, text);
    GTEST_SKIP() << "refreshed " << path;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: run scripts/refresh-golden.sh";
  EXPECT_EQ(text, testing::read_text(path)) << "generated source changed; refresh with scripts/refresh-golden.sh";
}

INSTANTIATE_TEST_SUITE_P(Sources, EmitGolden, ::testing::ValuesIn(golden_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(Emit, IdenticalSpecializationsAreEmittedOnce) {
  const CallFacts load = call("load", Group::this_block({128, 1, 1}), DType::Int32, 2, "transpose");
  CallFacts partial = load;
  partial.options["valid_items"] = OptionBinding::runtime();
  const EmittedSource source = emit(plans_of({load, partial, load}), kContext);
  ASSERT_EQ(source.symbols.size(), 3u);
  EXPECT_EQ(source.symbols[0], source.symbols[2]);
  EXPECT_NE(source.symbols[0], source.symbols[1]);
  const auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = source.text.find(needle); at != std::string::npos; at = source.text.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("using coop_spec_"), 1u);  // both plans share one CUB specialization
  EXPECT_EQ(count("extern \"C\" __device__ int "), 2u);
  EXPECT_EQ(count("#include <cub/block/block_load.cuh>"), 1u);
}

TEST(Emit, SymbolsEncodeSpecializationAndIdentity) {
  const std::vector<Plan> plans = plans_of({call("load", Group::this_block({128, 1, 1}), DType::Int32, 2, "direct")});
  const EmittedSource here = emit(plans, kContext);
  const EmittedSource other_toolkit = emit(plans, {"another-toolkit", "sm_90"});
  const EmittedSource other_arch = emit(plans, {"golden-toolkit", "sm_100"});
  EXPECT_TRUE(std::regex_match(here.symbols[0], std::regex("coop_load_[0-9a-f]{12}_[0-9a-f]{8}")));
  EXPECT_NE(here.symbols[0], other_toolkit.symbols[0]);
  EXPECT_NE(here.symbols[0], other_arch.symbols[0]);
  EXPECT_EQ(here.symbols[0].substr(0, 22), other_toolkit.symbols[0].substr(0, 22));
}

TEST(Emit, UserOperatorsAreDeclaredOncePerBundle) {
  const Group warp = Group::this_warp({128, 1, 1}, 8);
  CallFacts reduce =
      scalar_call("reduce", warp, DType::Float32, "", {{"binary_op", OptionBinding::fixed("user:my_op")}});
  CallFacts scan =
      call("inclusive_scan", warp, DType::Float32, 4, "", {{"scan_op", OptionBinding::fixed("user:my_op")}});
  const EmittedSource source = emit(plans_of({reduce, scan}), kContext);
  std::size_t declarations = 0;
  const std::string declaration = "extern \"C\" __device__ float my_op(float a, float b);";
  for (std::size_t at = source.text.find(declaration); at != std::string::npos;
       at = source.text.find(declaration, at + 1)) {
    ++declarations;
  }
  EXPECT_EQ(declarations, 1u);
  EXPECT_NE(source.text.find("struct coop_user_op_my_op {"), std::string::npos);
}

TEST(Emit, RejectsOneUserOperatorWithTwoDtypes) {
  const Group warp = Group::this_warp({128, 1, 1}, 8);
  const auto op = OptionBinding::fixed("user:my_op");
  CallFacts first = scalar_call("reduce", warp, DType::Float32, "", {{"binary_op", op}});
  CallFacts second = scalar_call("reduce", warp, DType::Float64, "", {{"binary_op", op}});
  try {
    emit(plans_of({first, second}), kContext);
    FAIL() << "one extern \"C\" symbol declared with two signatures";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("argument 'binary_op' = 'user:my_op'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("also used with float32"), std::string::npos) << error.what();
  }
}

TEST(Emit, ProbesOnlyForScratch) {
  const Group block = Group::this_block({128, 1, 1});
  const EmittedSource source = emit(
      plans_of({call("load", block, DType::Int32, 2, "direct"), call("load", block, DType::Int32, 2, "transpose")}),
      kContext);
  ASSERT_EQ(source.layout_probes.size(), 1u);
  EXPECT_EQ(source.layout_probes[0],
            "&coop_probe::layout<sizeof(coop_spec_1::TempStorage), alignof(coop_spec_1::TempStorage)>");
  EXPECT_EQ(source.probe_of_plan, (std::vector<int>{-1, 0}));
}

// Bundles of the same source text share one cache entry, so they must share its layouts:
// a repeated specialization adds no probe (a kernel with load + sum and one with
// load + sum + sum emit the same text).
TEST(Emit, RepeatedSpecializationsShareTheirProbe) {
  const Group block = Group::this_block({128, 1, 1});
  const CallFacts sum = call("sum", block, DType::Int32, 4, "raking");
  const CallFacts load = call("load", block, DType::Int32, 4, "transpose");
  const EmittedSource twice = emit(plans_of({load, sum, sum}), kContext);
  const EmittedSource once = emit(plans_of({load, sum}), kContext);
  EXPECT_EQ(twice.text, once.text);
  EXPECT_EQ(twice.layout_probes, once.layout_probes);
  EXPECT_EQ(twice.probe_of_plan, (std::vector<int>{0, 1, 1}));
}

// The STATIC value CUB receives as oob_default, from the generated Load call.
std::string static_oob_default(DType dtype, const std::string& text) {
  const CallFacts load = call("load", Group::this_block({128, 1, 1}), dtype, 2, "direct",
                              {{"valid_items", OptionBinding::runtime()}, {"oob_default", OptionBinding::fixed(text)}});
  const std::string source = emit(plans_of({load}), kContext).text;
  const std::string prefix = "Load(source, items, valid_items, ";
  const std::size_t at = source.find(prefix);
  if (at == std::string::npos) return "";
  const std::size_t start = at + prefix.size();
  return source.substr(start, source.find(");\n", start) - start);
}

// NVRTC has no __builtin_inf: infinities and NaNs are the dtype's exact bits.
TEST(Emit, InfinitiesAndNansAreExactBitPatterns) {
  const std::vector<std::tuple<DType, std::string, std::string>> expected = {
      {DType::Float16, "inf", "__ushort_as_half(0x7c00U)"},
      {DType::Float16, "-inf", "__ushort_as_half(0xfc00U)"},
      {DType::Float16, "nan", "__ushort_as_half(0x7e00U)"},
      {DType::Float16, "-nan", "__ushort_as_half(0xfe00U)"},
      {DType::BFloat16, "Infinity", "__ushort_as_bfloat16(0x7f80U)"},
      {DType::BFloat16, "-INF", "__ushort_as_bfloat16(0xff80U)"},
      {DType::BFloat16, "NaN", "__ushort_as_bfloat16(0x7fc0U)"},
      {DType::Float32, "+inf", "__uint_as_float(0x7f800000U)"},
      {DType::Float32, "-inf", "__uint_as_float(0xff800000U)"},
      {DType::Float32, "nan", "__uint_as_float(0x7fc00000U)"},
      {DType::Float64, "inf", "(__longlong_as_double(0x7ff0000000000000LL))"},
      {DType::Float64, "-inf", "(-__longlong_as_double(0x7ff0000000000000LL))"},
      {DType::Float64, "-nan", "(-__longlong_as_double(0x7ff8000000000000LL))"},
  };
  for (const auto& [dtype, text, expression] : expected) {
    EXPECT_EQ(static_oob_default(dtype, text), expression) << info(dtype).name << " " << text;
  }
}

// C++ reads 010 as octal 8 and 7 as an int: values are spelled from what plan checked.
TEST(Emit, StaticNumbersAreSpelledAsChecked) {
  EXPECT_EQ(static_oob_default(DType::Int32, "010"), "static_cast<::cuda::std::int32_t>(10)");
  EXPECT_EQ(static_oob_default(DType::Int64, "-9223372036854775808"),
            "static_cast<::cuda::std::int64_t>((-9223372036854775807LL - 1))");
  EXPECT_EQ(static_oob_default(DType::UInt64, "18446744073709551615"),
            "static_cast<::cuda::std::uint64_t>(18446744073709551615ULL)");
  EXPECT_EQ(static_oob_default(DType::Float32, "007"), "static_cast<float>(007.0)");
  EXPECT_EQ(static_oob_default(DType::Float16, "-1.5e3"), "__float2half(static_cast<float>(-1.5e3))");
  const CallFacts load = call("load", Group::this_block({128, 1, 1}), DType::Int8, 2, "direct",
                              {{"valid_items", OptionBinding::fixed("010")}, {"offset", OptionBinding::fixed("0012")}});
  EXPECT_NE(emit(plans_of({load}), kContext).text.find("Load(source + (12LL), items, 10);"), std::string::npos);
}

}  // namespace
}  // namespace coop
