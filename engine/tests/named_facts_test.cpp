// Named dtypes and extents (CallFacts::dtypes, CallFacts::extents) end to end: an operation
// whose type expressions read them (ValueT[N], CounterT[bins], template slots bound to them)
// is planned, emitted and compiled by NVRTC, keyed by them, and refused without them. No
// landed family uses them yet, so the operations here are declared by the test and planned
// through plan(facts, operation); the product catalog never sees them.
#include <gtest/gtest.h>

#include <algorithm>

#include "coop/abi.hpp"
#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

// Radix sort of key-value pairs: cub::BlockRadixSort<KeyT, BLOCK_DIM_X, ITEMS_PER_THREAD,
// ValueT>::Sort(keys, values), the values of their own dtype.
const OperationSpec& sort_pairs() {
  static const OperationSpec operation{
      .name = "sort_pairs",
      .family = "radix_sort",
      .method = "Sort",
      .operands = {{.name = "keys", .role = OperandRole::PayloadInOut},
                   {.name = "values", .role = OperandRole::PayloadInOut, .array = {.element = "ValueT"}}},
      .method_arguments = {"keys", "values"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockRadixSort",
                 .header = "cub/block/block_radix_sort.cuh",
                 .template_args = {{"KeyT", TemplateArg::DType},
                                   {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                   {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                   {"ValueT", TemplateArg::NamedDType, "ValueT"}},
                 .needs_scratch = true}},
  };
  return operation;
}

// A block histogram: cub::BlockHistogram<T, BLOCK_DIM_X, ITEMS_PER_THREAD,
// BINS>::Histogram(items, histogram), as many counters (of their own dtype) as the array holds.
const OperationSpec& histogram() {
  static const OperationSpec operation{
      .name = "histogram",
      .family = "histogram",
      .method = "Histogram",
      .operands = {{.name = "items", .role = OperandRole::PayloadIn},
                   {.name = "histogram",
                    .role = OperandRole::PayloadOut,
                    .array = {.element = "CounterT", .extent = "bins"}}},
      .method_arguments = {"items", "histogram"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockHistogram",
                 .header = "cub/block/block_histogram.cuh",
                 .template_args = {{"T", TemplateArg::DType},
                                   {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                   {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                   {"BINS", TemplateArg::NamedExtent, "bins"}},
                 .needs_scratch = true}},
  };
  return operation;
}

// Both payload shapes, and a payload array read beside the payload whose dtype and extent are named.
const OperationSpec& scalar_pairs() {
  static const OperationSpec operation{
      .name = "scalar_pairs",
      .family = "radix_sort",
      .method = "Apply",
      .operands = {{.name = "keys", .role = OperandRole::PayloadIn},
                   {.name = "values", .role = OperandRole::PayloadIn, .array = {.element = "ValueT"}}},
      .options = {{.name = "weights",
                   .type = OptionType::PayloadArray,
                   .allow_static = false,
                   .array = {.element = "WeightT", .extent = "bins"}}},
      .method_arguments = {"keys", "values", "weights"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::coop_test::Pairs",
                 .header = "coop_test/pairs.cuh",
                 .template_args = {{"KeyT", TemplateArg::DType}},
                 .payloads = {{PayloadKind::Array, {}, nullptr}, {PayloadKind::Scalar, {}, nullptr}}}},
  };
  return operation;
}

CallFacts pairs_call(DType values) {
  CallFacts facts{"sort_pairs", Group::this_block({128, 1, 1}), DType::Int32, 4, {}, "sort_tile (kernel.py:7)"};
  facts.dtypes = {{"ValueT", values}};
  return facts;
}

CallFacts histogram_call(int bins, DType counters = DType::UInt32) {
  CallFacts facts{"histogram", Group::this_block({128, 1, 1}), DType::UInt8, 4, {}, "histo (kernel.py:9)"};
  facts.dtypes = {{"CounterT", counters}};
  facts.extents = {{"bins", bins}};
  return facts;
}

const AbiParam& abi_param(const Plan& planned, const std::string& name) {
  for (const auto& param : planned.abi) {
    if (param.name == name) return param;
  }
  throw std::runtime_error("no ABI parameter " + name);
}

// Whether `text` holds `fragment`, showing the text when it does not.
::testing::AssertionResult holds(const std::string& text, const std::string& fragment) {
  if (text.find(fragment) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << fragment << "' is not in:\n" << text;
}

// The message plan() refuses `facts` with, against `operation`, as an error of `kind`.
std::string refusal(const CallFacts& facts, const OperationSpec& operation,
                    ErrorKind kind = ErrorKind::InvalidArgument) {
  try {
    plan(facts, operation);
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), kind) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "planned: " << facts.call_name();
  return "";
}

TEST(NamedFacts, ANamedDTypeBindsItsTemplateSlotAndTypesItsArray) {
  const Plan planned = plan(pairs_call(DType::Float16), sort_pairs());
  EXPECT_EQ(planned.cub_type, "::cub::BlockRadixSort<::cuda::std::int32_t, 128, 4, __half>");
  EXPECT_EQ(planned.template_arguments.back(), (std::pair<std::string, std::string>{"ValueT", "__half"}));
  // A ValueT[N] of float16 crosses like any float16 array; the keys stay of the call's dtype.
  EXPECT_EQ(abi_param(planned, "values"), (AbiParam{"values", AbiKind::Pointer, "__half", "float16"}));
  EXPECT_EQ(abi_param(planned, "keys").value_dtype, "int32");
  EXPECT_NE(std::find(planned.headers.begin(), planned.headers.end(), "cuda_fp16.h"), planned.headers.end());
  EXPECT_TRUE(holds(planned.describe(), "ValueT: float16\n"));
}

TEST(NamedFacts, ANamedExtentBindsItsTemplateSlotAndSizesItsArray) {
  const Plan planned = plan(histogram_call(256), histogram());
  EXPECT_EQ(planned.cub_type, "::cub::BlockHistogram<::cuda::std::uint8_t, 128, 4, 256>");
  EXPECT_EQ(abi_param(planned, "histogram"),
            (AbiParam{"histogram", AbiKind::Pointer, "::cuda::std::uint32_t", "uint32"}));
  const std::string source = emit({planned}, {"probe", "sm_90"}).text;
  EXPECT_TRUE(holds(source, "::cuda::std::uint32_t (&histogram)[256]"));
  EXPECT_TRUE(holds(source, "*static_cast<::cuda::std::uint32_t (*)[256]>(histogram)"));
  EXPECT_TRUE(holds(source, "// histogram: block(128,1,1), uint8 x 4, CounterT uint32, bins 256\n"));
}

TEST(NamedFacts, TheEmittedCallTypesEachArrayByItsOwnDType) {
  const std::string source = emit({plan(pairs_call(DType::Float16), sort_pairs())}, {"probe", "sm_90"}).text;
  EXPECT_TRUE(holds(source, "using coop_spec_0 = ::cub::BlockRadixSort<::cuda::std::int32_t, 128, 4, __half>;"));
  EXPECT_TRUE(holds(source, "::cuda::std::int32_t (&keys)[4], __half (&values)[4]"));
  EXPECT_TRUE(holds(source, "*static_cast<__half (*)[4]>(values)"));
  EXPECT_TRUE(holds(source, ".Sort(keys, values);"));
}

TEST(NamedFacts, OtherNamedDTypesAndExtentsAreOtherProviders) {
  const Plan halves = plan(pairs_call(DType::Float16), sort_pairs());
  const Plan singles = plan(pairs_call(DType::Float32), sort_pairs());
  EXPECT_NE(halves.key, singles.key);
  EXPECT_NE(halves.digest, singles.digest);
  EXPECT_TRUE(holds(halves.key, ";dtype:ValueT=float16"));
  EXPECT_NE(plan(histogram_call(64), histogram()).key, plan(histogram_call(256), histogram()).key);
  EXPECT_NE(plan(histogram_call(64), histogram()).key, plan(histogram_call(64, DType::Int32), histogram()).key);
  EXPECT_TRUE(holds(plan(histogram_call(64), histogram()).key, ";extent:bins=64"));
}

TEST(NamedFacts, ALandedOperationsKeyHasNoNamedFacts) {
  const CallFacts load{"load", Group::this_block({128, 1, 1}), DType::Int32, 4, {}, ""};
  EXPECT_EQ(plan(load).key.find("dtype:"), std::string::npos);
  EXPECT_EQ(plan(load).key.find("extent:"), std::string::npos);
}

TEST(NamedFacts, ScalarPayloadsPassANamedDTypeByValueAndANamedExtentAsAnArray) {
  CallFacts facts{"scalar_pairs", Group::this_block({64, 1, 1}), DType::Int64, 1, {}, ""};
  facts.payload = PayloadKind::Scalar;
  facts.dtypes = {{"ValueT", DType::Float16}, {"WeightT", DType::Float32}};
  facts.extents = {{"bins", 16}};
  facts.options = {{"weights", OptionBinding::runtime()}};
  const Plan planned = plan(facts, scalar_pairs());
  EXPECT_EQ(abi_param(planned, "values"), (AbiParam{"values", AbiKind::Value, "::cuda::std::uint16_t", "float16"}));
  EXPECT_EQ(abi_param(planned, "weights"), (AbiParam{"weights", AbiKind::Pointer, "float", "float32"}));
  EXPECT_EQ(operand_argument(facts, scalar_pairs().operands[1]), "__ushort_as_half(values)");
  EXPECT_EQ(option_argument(facts, scalar_pairs().options[0]), "*static_cast<float (*)[16]>(weights)");
  EXPECT_TRUE(holds(emit({planned}, {"probe", "sm_90"}).text, "__half values, float (&weights)[16]"));
}

TEST(NamedFacts, AMissingNamedDTypeOrExtentNamesTheArgumentReadingIt) {
  CallFacts no_values = pairs_call(DType::Float16);
  no_values.dtypes.clear();
  EXPECT_TRUE(holds(refusal(no_values, sort_pairs()),
                    "sort_pairs (sort_tile (kernel.py:7)): argument 'values' = no dtype given for ValueT is not "
                    "allowed; expected dtypes['ValueT']: the dtype of the array passed as values (ValueT[N]), one "
                    "of: bool, int8"));
  CallFacts no_bins = histogram_call(256);
  no_bins.extents.clear();
  EXPECT_TRUE(holds(refusal(no_bins, histogram()),
                    "argument 'histogram' = no extent given for bins is not allowed; expected extents['bins']: the "
                    "length of the array passed as histogram (CounterT[bins]), 1 to 65536"));
}

TEST(NamedFacts, AnOmittedOptionNeedsNoNamedFactsButABoundOneDoes) {
  CallFacts facts{"scalar_pairs", Group::this_block({64, 1, 1}), DType::Int64, 2, {}, ""};
  facts.dtypes = {{"ValueT", DType::Int8}};
  EXPECT_NO_THROW(plan(facts, scalar_pairs()));
  facts.dtypes["WeightT"] = DType::Float32;  // one provider, one key: a fact nothing reads is refused
  EXPECT_TRUE(holds(refusal(facts, scalar_pairs()),
                    "argument 'dtypes' = 'WeightT' is not allowed; expected no WeightT: "
                    "what reads it (weights) is not part of this call"));
  facts.dtypes.erase("WeightT");
  facts.options = {{"weights", OptionBinding::runtime()}};
  EXPECT_TRUE(holds(refusal(facts, scalar_pairs()),
                    "argument 'weights' = no dtype given for WeightT is not allowed; expected dtypes['WeightT']: "
                    "the dtype of the array passed as weights (WeightT[bins])"));
}

TEST(NamedFacts, AnUnknownNamedDTypeOrExtentNamesTheOnesTheOperationHas) {
  CallFacts stray = pairs_call(DType::Float16);
  stray.dtypes["CounterT"] = DType::Int32;
  EXPECT_TRUE(holds(refusal(stray, sort_pairs()),
                    "argument 'dtypes' = 'CounterT' is not allowed; expected one of the named dtypes of "
                    "sort_pairs: ValueT"));
  stray = pairs_call(DType::Float16);
  stray.extents["bins"] = 8;
  EXPECT_TRUE(holds(refusal(stray, sort_pairs()),
                    "argument 'extents' = 'bins' is not allowed; expected no named extent: sort_pairs has none"));
  CallFacts load{"load", Group::this_block({128, 1, 1}), DType::Int32, 4, {}, ""};
  load.dtypes["ValueT"] = DType::Float16;
  EXPECT_THROW(plan(load), Error);
  EXPECT_TRUE(holds(refusal(load, *find_operation("load")), "expected no named dtype: load has none"));
}

TEST(NamedFacts, ANamedExtentIsPositiveAndBounded) {
  for (const int bins : {0, -4, kMaxNamedExtent + 1}) {
    EXPECT_TRUE(holds(refusal(histogram_call(bins), histogram()),
                      "argument 'histogram' = " + std::to_string(bins) +
                          " is not allowed; expected extents['bins'] from 1 to 65536: the length of the array passed "
                          "as histogram (CounterT[bins])"));
  }
  EXPECT_NO_THROW(plan(histogram_call(kMaxNamedExtent), histogram()));
}

TEST(NamedFacts, AComplexNamedDTypeCrossesByPointer) {
  CallFacts facts{"scalar_pairs", Group::this_block({64, 1, 1}), DType::Int64, 1, {}, ""};
  facts.payload = PayloadKind::Scalar;
  facts.dtypes = {{"ValueT", DType::Complex64}};
  const Plan planned = plan(facts, scalar_pairs());
  const auto values = std::find_if(planned.abi.begin(), planned.abi.end(),
                                   [](const AbiParam& param) { return param.name == "values"; });
  ASSERT_NE(values, planned.abi.end());
  EXPECT_EQ(values->cpp_type, "const void*");
}

TEST(NamedFacts, FactsPlanOnlyAgainstTheOperationTheyName) {
  EXPECT_TRUE(holds(refusal(pairs_call(DType::Float16), histogram(), ErrorKind::UnsupportedOperation),
                    "argument 'operation' = 'sort_pairs' is not allowed; expected 'histogram'"));
}

// NVRTC compiles the providers to LTO-IR, with the scratch each specialization needs.
TEST(NamedFacts, ProvidersOfNamedDTypesAndExtentsCompileWithNvrtc) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const std::vector<Plan> plans = {
      plan(pairs_call(DType::Float16), sort_pairs()), plan(pairs_call(DType::Float64), sort_pairs()),
      plan(histogram_call(256), histogram()), plan(histogram_call(64, DType::Int32), histogram())};
  const Bundle bundle = engine.compile(plans, "sm_90");
  EXPECT_FALSE(bundle.ltoir.empty());
  ASSERT_EQ(bundle.providers.size(), plans.size());
  for (const Provider& provider : bundle.providers) EXPECT_GT(provider.scratch.bytes, 0u) << provider.cub_type;
  EXPECT_EQ(bundle.providers[2].abi[1].value_dtype, "uint32");
  EXPECT_EQ(bundle.providers[3].abi[1].value_dtype, "int32");
}

}  // namespace
}  // namespace coop
