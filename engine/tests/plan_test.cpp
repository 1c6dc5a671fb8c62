#include <gtest/gtest.h>

#include <algorithm>

#include "coop/error.hpp"
#include "coop/plan.hpp"
#include "coop/warning.hpp"

namespace coop {
namespace {

CallFacts block_call(const std::string& operation, const std::string& algorithm, Dim3 block = {128, 1, 1}) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = Group::this_block(block);
  facts.dtype = DType::Int32;
  facts.items_per_thread = 2;
  facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  return facts;
}

// Runs plan() and checks the error names the call and the argument.
void expect_rejected(const CallFacts& facts, ErrorKind kind, const std::string& argument, const std::string& fragment) {
  try {
    plan(facts);
    FAIL() << "accepted a call that should be rejected (" << argument << ")";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.kind(), kind) << message;
    EXPECT_NE(message.find("argument '" + argument + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.rfind(facts.call_name() + ": ", 0), 0u) << message;
  }
}

TEST(Plan, TileCopyLoad) {
  const Plan load = plan(block_call("load", "direct"));
  EXPECT_EQ(load.cub_type, "::cub::BlockLoad<::cuda::std::int32_t, 128, 2, ::cub::BLOCK_LOAD_DIRECT, 1, 1>");
  EXPECT_FALSE(load.needs_scratch);
  EXPECT_EQ(load.reuse_barrier, Barrier::None);
  ASSERT_EQ(load.abi.size(), 2u);
  EXPECT_EQ(load.abi[0], (AbiParam{"source", AbiKind::Pointer, "::cuda::std::int32_t", "int32"}));
  EXPECT_EQ(load.abi[1], (AbiParam{"items", AbiKind::Pointer, "::cuda::std::int32_t", "int32"}));
  EXPECT_EQ(load.tile_capacity(), 256);
  EXPECT_EQ(load.digest.size(), 64u);
}

TEST(Plan, StridedViewsCrossAsPointerExtentsAndStrides) {
  CallFacts facts = block_call("load", "vectorize");
  facts.strided_views["source"] = 2;
  const Plan load = plan(facts);
  ASSERT_EQ(load.abi.size(), 6u);
  EXPECT_EQ(load.abi[0], (AbiParam{"source", AbiKind::Pointer, "::cuda::std::int32_t", "int32"}));
  EXPECT_EQ(load.abi[1], (AbiParam{"source_extent_0", AbiKind::Extent, "::cuda::std::int64_t", "int64", "source", 0}));
  EXPECT_EQ(load.abi[2], (AbiParam{"source_extent_1", AbiKind::Extent, "::cuda::std::int64_t", "int64", "source", 1}));
  EXPECT_EQ(load.abi[3], (AbiParam{"source_stride_0", AbiKind::Stride, "::cuda::std::int64_t", "int64", "source", 0}));
  EXPECT_EQ(load.abi[4], (AbiParam{"source_stride_1", AbiKind::Stride, "::cuda::std::int64_t", "int64", "source", 1}));
  EXPECT_EQ(load.abi[5], (AbiParam{"items", AbiKind::Pointer, "::cuda::std::int32_t", "int32"}));
  EXPECT_NE(load.key, plan(block_call("load", "vectorize")).key);  // a view is another specialization
  EXPECT_NE(load.describe().find("source: a strided 2-D view"), std::string::npos) << load.describe();
}

TEST(Plan, StridedViewsNameAMemoryOperandAndFitTheDimensionLimit) {
  CallFacts facts = block_call("load", "direct");
  facts.strided_views["items"] = 1;
  expect_rejected(facts, ErrorKind::InvalidArgument, "strided view", "a memory operand of load: source");
  facts.strided_views = {{"source", 9}};
  expect_rejected(facts, ErrorKind::UnsupportedOperation, "source", "1 to 8 dimensions");
  facts.strided_views = {{"source", 0}};
  expect_rejected(facts, ErrorKind::UnsupportedOperation, "source", "1 to 8 dimensions");
}

TEST(Plan, OmittedAlgorithmIsDirect) {
  CallFacts facts = block_call("store", "direct");
  facts.options.clear();
  EXPECT_EQ(plan(facts).algorithm->name, "direct");
  EXPECT_EQ(plan(facts).key, plan(block_call("store", "direct")).key);
}

TEST(Plan, TransposeNeedsScratchAndABlockBarrier) {
  const Plan load = plan(block_call("load", "transpose", {32, 4, 1}));
  EXPECT_EQ(load.cub_type, "::cub::BlockLoad<::cuda::std::int32_t, 32, 2, ::cub::BLOCK_LOAD_TRANSPOSE, 4, 1>");
  EXPECT_TRUE(load.needs_scratch);
  EXPECT_EQ(load.scratch_instances, 1);
  EXPECT_EQ(load.reuse_barrier, Barrier::Block);
  EXPECT_EQ(load.abi.back(), (AbiParam{"temp_storage", AbiKind::Pointer, "unsigned char", "uint8"}));
}

TEST(Plan, LogicalWarpsOwnOneScratchEach) {
  CallFacts facts = block_call("load", "transpose");
  facts.group = Group::this_warp({128, 1, 1}, 8);
  const Plan load = plan(facts);
  EXPECT_EQ(load.cub_type, "::cub::WarpLoad<::cuda::std::int32_t, 2, ::cub::WARP_LOAD_TRANSPOSE, 8>");
  EXPECT_EQ(load.scratch_instances, 16);
  EXPECT_EQ(load.reuse_barrier, Barrier::Warp);
  EXPECT_EQ(load.tile_capacity(), 16);
}

TEST(Plan, RuntimeOptionsBecomeAbiValuesInDeclaredOrder) {
  CallFacts facts = block_call("load", "striped");
  facts.dtype = DType::Float16;
  facts.options["offset"] = OptionBinding::runtime();
  facts.options["oob_default"] = OptionBinding::runtime();
  facts.options["valid_items"] = OptionBinding::runtime();
  const Plan load = plan(facts);
  ASSERT_EQ(load.abi.size(), 5u);
  EXPECT_EQ(load.abi[2], (AbiParam{"valid_items", AbiKind::Value, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(load.abi[3], (AbiParam{"oob_default", AbiKind::Value, "::cuda::std::uint16_t", "float16"}));
  EXPECT_EQ(load.abi[4], (AbiParam{"offset", AbiKind::Value, "::cuda::std::int64_t", "int64"}));
}

TEST(Plan, KeyFollowsWhatShapesTheCodeOnly) {
  const CallFacts base = block_call("load", "transpose");
  CallFacts other = base;
  other.where = "copy_tile (kernel.py:12)";
  EXPECT_EQ(plan(base).key, plan(other).key);
  auto differs = [&](auto change) {
    CallFacts changed = base;
    change(changed);
    return plan(changed).digest != plan(base).digest;
  };
  EXPECT_TRUE(differs([](CallFacts& f) { f.dtype = DType::Int64; }));
  EXPECT_TRUE(differs([](CallFacts& f) { f.items_per_thread = 4; }));
  EXPECT_TRUE(differs([](CallFacts& f) { f.group = Group::this_block({32, 4, 1}); }));
  EXPECT_TRUE(differs([](CallFacts& f) { f.options["algorithm"] = OptionBinding::fixed("warp_transpose"); }));
  EXPECT_TRUE(differs([](CallFacts& f) { f.options["valid_items"] = OptionBinding::runtime(); }));
  EXPECT_TRUE(differs([](CallFacts& f) { f.options["valid_items"] = OptionBinding::fixed("5"); }));
}

TEST(Plan, RejectsUnknownOperation) {
  expect_rejected(block_call("lod", "direct"), ErrorKind::UnsupportedOperation, "operation", "load, store");
}

TEST(Plan, RejectsAlgorithmsTheGroupKindLacks) {
  CallFacts facts = block_call("load", "warp_transpose");
  facts.group = Group::this_warp({64, 1, 1});
  expect_rejected(facts, ErrorKind::UnsupportedOperation, "algorithm", "direct, striped, vectorize, transpose");
  expect_rejected(block_call("store", "blocked"), ErrorKind::UnsupportedOperation, "algorithm", "warp_transpose");
}

TEST(Plan, RejectsItemsPerThreadBelowOne) {
  CallFacts facts = block_call("load", "direct");
  facts.items_per_thread = 0;
  expect_rejected(facts, ErrorKind::InvalidArgument, "items_per_thread", ">= 1");
}

TEST(Plan, RejectsBlocksOfNoneOrTooManyThreads) {
  expect_rejected(block_call("load", "direct", {0, 1, 1}), ErrorKind::InvalidGroup, "block", ">= 1");
  expect_rejected(block_call("load", "direct", {2048, 1, 1}), ErrorKind::InvalidGroup, "block", "at most 1024");
}

TEST(Plan, RejectsWarpOperationsOnPartialWarps) {
  CallFacts facts = block_call("load", "direct");
  facts.group = Group::this_warp({48, 1, 1});
  expect_rejected(facts, ErrorKind::InvalidGroup, "block", "whole warps");
  expect_rejected(block_call("load", "warp_transpose", {96 + 4, 1, 1}), ErrorKind::InvalidGroup, "block",
                  "whole warps");
}

TEST(Plan, RejectsBadPartitionWidths) {
  CallFacts facts = block_call("store", "direct");
  facts.group = Group::this_warp({64, 1, 1}, 12);
  expect_rejected(facts, ErrorKind::InvalidGroup, "warp width", "power of two from 1 to 32");
}

TEST(Plan, RejectsOobDefaultWithoutValidItems) {
  CallFacts facts = block_call("load", "direct");
  facts.options["oob_default"] = OptionBinding::runtime();
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "only together with valid_items");
}

TEST(Plan, RejectsOptionsTheOperationLacks) {
  CallFacts facts = block_call("store", "direct");
  facts.options["oob_default"] = OptionBinding::fixed("0");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "algorithm, valid_items, offset");
}

TEST(Plan, RejectsARuntimeAlgorithm) {
  CallFacts facts = block_call("load", "direct");
  facts.options["algorithm"] = OptionBinding::runtime();
  expect_rejected(facts, ErrorKind::InvalidArgument, "algorithm", "compile-time constant");
}

TEST(Plan, ChecksStaticValuesBeforeCompiling) {
  CallFacts facts = block_call("load", "direct");
  facts.options["valid_items"] = OptionBinding::fixed("257");
  expect_rejected(facts, ErrorKind::InvalidArgument, "valid_items", "0..256");
  facts.options["valid_items"] = OptionBinding::fixed("-1");
  expect_rejected(facts, ErrorKind::InvalidArgument, "valid_items", "0..256");
  facts.options["valid_items"] = OptionBinding::fixed("ten");
  expect_rejected(facts, ErrorKind::InvalidArgument, "valid_items", "an integer");
  facts.options["valid_items"] = OptionBinding::fixed("256");
  facts.dtype = DType::Int8;
  facts.options["oob_default"] = OptionBinding::fixed("300");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "-128..127");
  facts.dtype = DType::UInt64;
  facts.options["oob_default"] = OptionBinding::fixed("-1");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", ">= 0");
  facts.dtype = DType::Float32;
  facts.options["oob_default"] = OptionBinding::fixed("1.5x");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "a number");
  facts.options["oob_default"] = OptionBinding::fixed("-inf");
  EXPECT_NO_THROW(plan(facts));
}

// Reductions and scans.

CallFacts reduce_call(const std::string& operation, Group group, DType dtype, PayloadKind payload, int items,
                      std::map<std::string, OptionBinding> options = {}) {
  CallFacts facts{operation, group, dtype, items, std::move(options), "kernel.py:7"};
  facts.payload = payload;
  return facts;
}

const Group kBlock128 = Group::this_block({128, 1, 1});
const Group kWarp8 = Group::this_warp({128, 1, 1}, 8);

TEST(Plan, BlockReductionOfThreadData) {
  const Plan reduce =
      plan(reduce_call("reduce", kBlock128, DType::Float32, PayloadKind::Array, 4,
                       {{"binary_op", OptionBinding::fixed("max")}, {"algorithm", OptionBinding::fixed("raking")}}));
  EXPECT_EQ(reduce.cub_type, "::cub::BlockReduce<float, 128, ::cub::BLOCK_REDUCE_RAKING, 1, 1>");
  // Called through the adapter that adds the partial-tile overloads CUB lacks.
  EXPECT_EQ(reduce.call_type, "::coop_adapt::BlockReducePartial<float, 128, ::cub::BLOCK_REDUCE_RAKING, 1, 1>");
  EXPECT_EQ(reduce.method, "Reduce");
  EXPECT_TRUE(reduce.needs_scratch);
  EXPECT_EQ(reduce.reuse_barrier, Barrier::Block);
  ASSERT_TRUE(reduce.result.has_value());
  EXPECT_EQ(*reduce.result, (AbiParam{"result", AbiKind::Pointer, "float", "float32"}));
  ASSERT_EQ(reduce.abi.size(), 2u);
  EXPECT_EQ(reduce.abi[0], (AbiParam{"value", AbiKind::Pointer, "float", "float32"}));
  EXPECT_TRUE(reduce.external_functions.empty());
  EXPECT_NE(std::find(reduce.headers.begin(), reduce.headers.end(), "cuda/functional"), reduce.headers.end());
}

TEST(Plan, DefaultAlgorithmsFollowCub) {
  EXPECT_EQ(plan(reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Array, 2)).algorithm->name,
            "warp_reductions");
  EXPECT_EQ(plan(reduce_call("exclusive_sum", kBlock128, DType::Int32, PayloadKind::Array, 2)).algorithm->name,
            "raking");
  EXPECT_EQ(plan(reduce_call("sum", kWarp8, DType::Int32, PayloadKind::Array, 2)).algorithm, nullptr);
}

TEST(Plan, ScalarPayloadsPassByValueAndReturnThroughRet) {
  const Plan sum = plan(reduce_call("sum", Group::this_block({32, 4, 1}), DType::Float16, PayloadKind::Scalar, 1,
                                    {{"valid_items", OptionBinding::runtime()}}));
  EXPECT_EQ(sum.cub_type, "::cub::BlockReduce<__half, 32, ::cub::BLOCK_REDUCE_WARP_REDUCTIONS, 4, 1>");
  ASSERT_EQ(sum.abi.size(), 3u);
  EXPECT_EQ(sum.abi[0], (AbiParam{"value", AbiKind::Value, "::cuda::std::uint16_t", "float16"}));
  EXPECT_EQ(sum.abi[1], (AbiParam{"valid_items", AbiKind::Value, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(sum.result->cpp_type, "__half");
  EXPECT_EQ(sum.tile_capacity(), 128);
}

// A scan writes a fresh payload the front end allocates (`result`); a scalar's is the call's result.
TEST(Plan, ScansWriteAFreshPayload) {
  const auto runtime = OptionBinding::runtime();
  const Plan sum = plan(reduce_call("inclusive_sum", kBlock128, DType::Int64, PayloadKind::Array, 4));
  EXPECT_FALSE(sum.result.has_value());
  EXPECT_EQ(sum.abi[1], (AbiParam{"result", AbiKind::Pointer, "::cuda::std::int64_t", "int64"}));
  const Plan scan = plan(reduce_call(
      "exclusive_scan", kBlock128, DType::Int64, PayloadKind::Array, 4,
      {{"scan_op", OptionBinding::fixed("min")}, {"initial_value", runtime}, {"aggregate_output", runtime}}));
  EXPECT_EQ(scan.method, "ExclusiveScan");
  EXPECT_FALSE(scan.result.has_value());
  ASSERT_EQ(scan.abi.size(), 5u);
  EXPECT_EQ(scan.abi[0], (AbiParam{"value", AbiKind::Pointer, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(scan.abi[1], (AbiParam{"result", AbiKind::Pointer, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(scan.abi[2], (AbiParam{"initial_value", AbiKind::Value, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(scan.abi[3], (AbiParam{"aggregate_output", AbiKind::Pointer, "::cuda::std::int64_t", "int64"}));
  EXPECT_EQ(scan.abi[4].name, "temp_storage");
  const Plan scalar = plan(reduce_call("exclusive_sum", kBlock128, DType::Int64, PayloadKind::Scalar, 1));
  EXPECT_EQ(scalar.result->cpp_type, "::cuda::std::int64_t");
  EXPECT_EQ(scalar.abi.size(), 2u);  // value, temp_storage: the scanned value comes back through ret
}

// The mode and the operator choose CUB's member function: the sum (the default operator) needs
// no seed; another operator's exclusive scan needs initial_value or a prefix_op; an inclusive
// scan takes no initial_value.
TEST(Plan, ModeAndOperatorChooseTheScan) {
  const auto scan = [](const std::string& operation, std::map<std::string, OptionBinding> options) {
    return reduce_call(operation, kBlock128, DType::Int32, PayloadKind::Array, 2, std::move(options));
  };
  const auto fixed = [](const char* value) { return OptionBinding::fixed(value); };
  const auto runtime = OptionBinding::runtime();
  EXPECT_EQ(plan(scan("scan", {})).method, "ExclusiveSum");
  EXPECT_EQ(plan(scan("scan", {{"mode", fixed("inclusive")}})).method, "InclusiveSum");
  EXPECT_EQ(plan(scan("scan", {{"mode", fixed("inclusive")}, {"scan_op", fixed("max")}})).method, "InclusiveScan");
  EXPECT_EQ(plan(scan("scan", {{"scan_op", fixed("+")}, {"initial_value", runtime}})).method, "ExclusiveScan");
  EXPECT_EQ(plan(scan("exclusive_scan", {{"scan_op", fixed("add")}})).method, "ExclusiveSum");
  EXPECT_EQ(plan(scan("exclusive_scan", {{"scan_op", fixed("min")}, {"initial_value", fixed("7")}})).method,
            "ExclusiveScan");
  EXPECT_EQ(plan(scan("inclusive_scan", {})).method, "InclusiveSum");
  // The sum planned as a *Sum drops the operator: one key whichever way it was spelled.
  const Plan omitted = plan(scan("inclusive_scan", {}));
  EXPECT_EQ(omitted.key, plan(scan("inclusive_scan", {{"scan_op", fixed("plus")}})).key);
  EXPECT_EQ(omitted.facts.options.count("scan_op"), 0u);
  EXPECT_NE(plan(scan("scan", {{"mode", fixed("inclusive")}})).key.find(";scan_op=OMITTED"), std::string::npos);

  expect_rejected(scan("exclusive_scan", {{"scan_op", fixed("max")}}), ErrorKind::InvalidArgument, "initial_value",
                  "omitted is not allowed; expected a value: ::cub::BlockScan::ExclusiveScan needs initial_value or "
                  "prefix_op");
  expect_rejected(scan("scan", {{"scan_op", fixed("max")}}), ErrorKind::InvalidArgument, "initial_value",
                  "mode 'exclusive' needs initial_value or prefix_op");
  expect_rejected(scan("scan", {{"mode", fixed("inclusive")}, {"initial_value", runtime}}), ErrorKind::InvalidArgument,
                  "initial_value",
                  "no initial_value with mode 'inclusive', scan_op 'sum': ::cub::BlockScan::InclusiveSum does not "
                  "take it");
  expect_rejected(scan("inclusive_scan", {{"initial_value", runtime}}), ErrorKind::InvalidArgument, "initial_value",
                  "expected one of the options of inclusive_scan");
  expect_rejected(scan("scan", {{"mode", fixed("both")}}), ErrorKind::InvalidArgument, "mode",
                  "one of: exclusive, inclusive");
}

TEST(Plan, WarpThreadDataGoesThroughAnAdapterOfCubsClass) {
  const Plan scan = plan(reduce_call("inclusive_scan", kWarp8, DType::Int32, PayloadKind::Array, 4,
                                     {{"scan_op", OptionBinding::fixed("max")}}));
  EXPECT_EQ(scan.cub_type, "::cub::WarpScan<::cuda::std::int32_t, 8>");
  EXPECT_EQ(scan.call_type, "::coop_adapt::WarpScanItems<::cuda::std::int32_t, 8>");
  EXPECT_NE(scan.adapter, nullptr);
  EXPECT_EQ(scan.scratch_instances, 16);
  EXPECT_EQ(scan.reuse_barrier, Barrier::Warp);
  // One value per lane: CUB's class plus the seed's valid_items, taken last.
  const Plan scalar = plan(reduce_call("inclusive_scan", kWarp8, DType::Int32, PayloadKind::Scalar, 1,
                                       {{"scan_op", OptionBinding::fixed("max")},
                                        {"aggregate_output", OptionBinding::runtime()},
                                        {"valid_items", OptionBinding::runtime()}}));
  EXPECT_EQ(scalar.call_type, "::coop_adapt::WarpScanPartial<::cuda::std::int32_t, 8>");
  EXPECT_EQ(scalar.abi[1], (AbiParam{"aggregate_output", AbiKind::Pointer, "::cuda::std::int32_t", "int32"}));
  EXPECT_EQ(scalar.abi[2], (AbiParam{"valid_items", AbiKind::Value, "::cuda::std::int64_t", "int64"}));
}

TEST(Plan, FlagsSelectTheSegmentedMethod) {
  CallFacts facts =
      reduce_call("segmented_reduce", Group::this_warp({64, 1, 1}), DType::UInt32, PayloadKind::Scalar, 1);
  EXPECT_EQ(plan(facts).method, "HeadSegmentedReduce");
  facts.options["flags"] = OptionBinding::fixed("tails");
  const Plan tails = plan(facts);
  EXPECT_EQ(tails.method, "TailSegmentedReduce");
  EXPECT_EQ(tails.abi[1], (AbiParam{"flag", AbiKind::Value, "::cuda::std::int32_t", "int32"}));
}

TEST(Plan, UserOperatorsAreExternalFunctionsToLink) {
  const Plan reduce = plan(reduce_call("reduce", kWarp8, DType::BFloat16, PayloadKind::Scalar, 1,
                                       {{"binary_op", OptionBinding::fixed("user:first_nonzero")}}));
  ASSERT_EQ(reduce.external_functions.size(), 1u);
  EXPECT_EQ(reduce.external_functions[0].symbol, "first_nonzero");
  // A compiler's half and C++'s __nv_bfloat16 struct are passed differently: by pointer.
  EXPECT_EQ(reduce.external_functions[0].declaration,
            "extern \"C\" __device__ void first_nonzero(void* result, void* a, void* b);");
  EXPECT_TRUE(reduce.external_functions[0].by_pointer);
  const Plan by_value = plan(reduce_call("reduce", kWarp8, DType::Int16, PayloadKind::Scalar, 1,
                                         {{"binary_op", OptionBinding::fixed("user:first_nonzero")}}));
  EXPECT_EQ(by_value.external_functions[0].declaration,
            "extern \"C\" __device__ ::cuda::std::int16_t first_nonzero(::cuda::std::int16_t a, "
            "::cuda::std::int16_t b);");
}

TEST(Plan, PrefixCallbackTakesItsStateAtRunTime) {
  const Plan scan = plan(reduce_call("exclusive_scan", kBlock128, DType::Int64, PayloadKind::Array, 4,
                                     {{"scan_op", OptionBinding::fixed("user:first_nonzero")},
                                      {"prefix_op", OptionBinding::fixed("user:running_total")}}));
  EXPECT_EQ(scan.method, "ExclusiveScan");  // the prefix seeds it: no initial_value needed
  EXPECT_EQ(scan.abi[2], (AbiParam{"prefix_op_state", AbiKind::Pointer, "unsigned char", "uint8"}));
  EXPECT_EQ(scan.abi.back().name, "temp_storage");
  ASSERT_EQ(scan.external_functions.size(), 2u);
  EXPECT_EQ(scan.external_functions[1].kind, ExternalFunction::Kind::PrefixCallback);
  EXPECT_EQ(scan.external_functions[1].declaration,
            "extern \"C\" __device__ ::cuda::std::int64_t running_total(void* state, ::cuda::std::int64_t "
            "block_aggregate);");
  const Plan half = plan(reduce_call("inclusive_sum", kBlock128, DType::Float16, PayloadKind::Scalar, 1,
                                     {{"prefix_op", OptionBinding::fixed("user:running_total")}}));
  EXPECT_EQ(half.external_functions[0].declaration,
            "extern \"C\" __device__ void running_total(void* result, void* state, void* block_aggregate);");
  EXPECT_NE(half.key.find(";prefix_op=STATIC:user:running_total"), std::string::npos);
}

TEST(Plan, PrefixCallbackRejectionsNameTheArgument) {
  const OptionBinding prefix = OptionBinding::fixed("user:running_total");
  const auto scan = [&](const std::string& operation, Group group, std::map<std::string, OptionBinding> options) {
    options.emplace("prefix_op", prefix);
    return reduce_call(operation, group, DType::Int32, PayloadKind::Array, 4, std::move(options));
  };
  const OptionBinding runtime = OptionBinding::runtime();
  expect_rejected(scan("inclusive_sum", kBlock128, {{"aggregate_output", runtime}}), ErrorKind::InvalidArgument,
                  "prefix_op",
                  "given with aggregate_output is not allowed; expected either prefix_op or aggregate_output");
  expect_rejected(scan("exclusive_scan", kBlock128,
                       {{"scan_op", OptionBinding::fixed("max")}, {"initial_value", OptionBinding::fixed("1")}}),
                  ErrorKind::InvalidArgument, "prefix_op", "either prefix_op or initial_value");
  expect_rejected(scan("exclusive_sum", kWarp8, {}), ErrorKind::UnsupportedOperation, "prefix_op",
                  "given with a warp group is not allowed; expected no prefix_op: ::cub::WarpScan::ExclusiveSum has no "
                  "overload taking prefix_op");
  CallFacts builtin = scan("exclusive_sum", kBlock128, {});
  builtin.options["prefix_op"] = OptionBinding::fixed("sum");
  expect_rejected(builtin, ErrorKind::InvalidArgument, "prefix_op", "'sum' is not allowed; expected user:<symbol>");
  CallFacts at_run_time = scan("exclusive_sum", kBlock128, {});
  at_run_time.options["prefix_op"] = runtime;
  expect_rejected(at_run_time, ErrorKind::InvalidArgument, "prefix_op", "expected a compile-time constant");
  expect_rejected(scan("reduce", kBlock128, {}), ErrorKind::InvalidArgument, "prefix_op",
                  "expected one of the options of reduce");
}

TEST(Plan, ComplexPayloadsTakeSumsAndUserOperatorsOnArrays) {
  const Plan sum = plan(reduce_call("sum", kBlock128, DType::Complex64, PayloadKind::Array, 4));
  EXPECT_EQ(sum.cub_type,
            "::cub::BlockReduce<::cuda::std::complex<float>, 128, ::cub::BLOCK_REDUCE_WARP_REDUCTIONS, 1, 1>");
  EXPECT_EQ(sum.result->cpp_type, "::cuda::std::complex<float>");
  const Plan user = plan(reduce_call("inclusive_scan", kWarp8, DType::Complex128, PayloadKind::Array, 2,
                                     {{"scan_op", OptionBinding::fixed("user:cmul")}}));
  EXPECT_EQ(user.external_functions[0].declaration,
            "extern \"C\" __device__ void cmul(void* result, void* a, void* b);");

  // A complex value crosses by a pointer to its parts: scalars and runtime values work,
  // constants (which would need a literal) do not.
  const Plan scalar = plan(reduce_call("sum", kBlock128, DType::Complex64, PayloadKind::Scalar, 1));
  EXPECT_EQ(scalar.abi[0].cpp_type, "const void*");
  EXPECT_EQ(scalar.abi[0].kind, AbiKind::Value);
  EXPECT_NO_THROW(plan(reduce_call("exclusive_scan", kBlock128, DType::Complex64, PayloadKind::Array, 4,
                                   {{"initial_value", OptionBinding::runtime()}})));
  expect_rejected(reduce_call("reduce", kBlock128, DType::Complex128, PayloadKind::Array, 4,
                              {{"binary_op", OptionBinding::fixed("max")}}),
                  ErrorKind::UnsupportedOperation, "binary_op", "complex values have no order");
  expect_rejected(reduce_call("exclusive_scan", kBlock128, DType::Complex64, PayloadKind::Array, 4,
                              {{"initial_value", OptionBinding::fixed("1")}}),
                  ErrorKind::UnsupportedOperation, "initial_value", "no constant form");
}

TEST(Plan, BroadcastMovesAnyDtype) {
  const Plan broadcast = plan(
      reduce_call("broadcast", kWarp8, DType::Bool, PayloadKind::Scalar, 1, {{"src_lane", OptionBinding::fixed("7")}}));
  EXPECT_EQ(broadcast.cub_type, "::cub::WarpScan<bool, 8>");
  EXPECT_EQ(broadcast.method, "Broadcast");
  EXPECT_EQ(broadcast.result->cpp_type, "bool");
}

TEST(Plan, PayloadKindAndOperatorShapeTheKey) {
  const CallFacts base = reduce_call("reduce", kBlock128, DType::Int32, PayloadKind::Array, 1,
                                     {{"binary_op", OptionBinding::fixed("sum")}});
  CallFacts scalar = base;
  scalar.payload = PayloadKind::Scalar;
  CallFacts other_op = base;
  other_op.options["binary_op"] = OptionBinding::fixed("max");
  CallFacts omitted = base;  // binary_op=None is the sum, and "+" is its alias: one provider
  omitted.options.erase("binary_op");
  CallFacts alias = base;
  alias.options["binary_op"] = OptionBinding::fixed("+");
  EXPECT_NE(plan(base).digest, plan(scalar).digest);
  EXPECT_NE(plan(base).digest, plan(other_op).digest);
  EXPECT_EQ(plan(base).digest, plan(omitted).digest);
  EXPECT_EQ(plan(base).digest, plan(alias).digest);
  EXPECT_NE(plan(base).key.find(";payload=array"), std::string::npos);
}

TEST(Plan, RejectsValidItemsOnOverloadsCubLacks) {
  const auto runtime = OptionBinding::runtime();
  // A block's ThreadData reduction composes it (BlockReducePartial), up to the tile's items.
  EXPECT_EQ(
      plan(reduce_call("reduce", kBlock128, DType::Int32, PayloadKind::Array, 4, {{"valid_items", runtime}})).method,
      "Reduce");
  expect_rejected(reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Array, 4,
                              {{"valid_items", OptionBinding::fixed("513")}}),
                  ErrorKind::InvalidArgument, "valid_items", "1..512");
  expect_rejected(reduce_call("sum", kWarp8, DType::Int32, PayloadKind::Array, 2, {{"valid_items", runtime}}),
                  ErrorKind::UnsupportedOperation, "valid_items", "::cub::WarpReduce::Sum has no ThreadData overload");
  expect_rejected(
      reduce_call("inclusive_sum", kBlock128, DType::Int32, PayloadKind::Scalar, 1, {{"valid_items", runtime}}),
      ErrorKind::UnsupportedOperation, "valid_items",
      "given with a block group is not allowed; expected no valid_items: ::cub::BlockScan::InclusiveSum");
  expect_rejected(reduce_call("inclusive_sum", kWarp8, DType::Int32, PayloadKind::Array, 2, {{"valid_items", runtime}}),
                  ErrorKind::UnsupportedOperation, "valid_items", "an overload CUB does not have");
  expect_rejected(reduce_call("inclusive_sum", kWarp8, DType::Int32, PayloadKind::Scalar, 1,
                              {{"valid_items", OptionBinding::fixed("9")}}),
                  ErrorKind::InvalidArgument, "valid_items", "1..8");
  expect_rejected(reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Scalar, 1,
                              {{"valid_items", OptionBinding::fixed("129")}}),
                  ErrorKind::InvalidArgument, "valid_items", "1..128");
  // A reduction of no member has no value (the seed's bound): 0 is refused too.
  expect_rejected(
      reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Scalar, 1, {{"valid_items", OptionBinding::fixed("0")}}),
      ErrorKind::InvalidArgument, "valid_items", "1..128");
}

TEST(Plan, RejectsInitialValuesOfAnotherType) {
  CallFacts facts =
      reduce_call("exclusive_scan", kBlock128, DType::Int32, PayloadKind::Array, 2,
                  {{"scan_op", OptionBinding::fixed("max")}, {"initial_value", OptionBinding::fixed("1.5")}});
  expect_rejected(facts, ErrorKind::InvalidArgument, "initial_value", "an integer literal representable as int32");
  facts.dtype = DType::Int8;
  facts.options["initial_value"] = OptionBinding::fixed("300");
  expect_rejected(facts, ErrorKind::InvalidArgument, "initial_value", "-128..127");
  facts.dtype = DType::Float32;
  facts.options["initial_value"] = OptionBinding::fixed("one");
  expect_rejected(facts, ErrorKind::InvalidArgument, "initial_value", "a number for float32");
  facts.options["initial_value"] = OptionBinding::fixed("-inf");
  EXPECT_NO_THROW(plan(facts));
}

TEST(Plan, RejectsOperatorsThatDoNotApply) {
  CallFacts facts = reduce_call("reduce", kBlock128, DType::Float32, PayloadKind::Array, 2,
                                {{"binary_op", OptionBinding::fixed("bit_and")}});
  expect_rejected(facts, ErrorKind::UnsupportedOperation, "binary_op", "an integer dtype for bit_and");
  facts.options["binary_op"] = OptionBinding::fixed("median");
  expect_rejected(facts, ErrorKind::InvalidArgument, "binary_op",
                  "one of: sum, mul, min, max, bit_and, bit_or, bit_xor");
  facts.options["binary_op"] = OptionBinding::fixed("user:3d-op");
  expect_rejected(facts, ErrorKind::InvalidArgument, "binary_op", "a C identifier");
  facts.options["binary_op"] = OptionBinding::runtime();
  expect_rejected(facts, ErrorKind::InvalidArgument, "binary_op", "a compile-time constant");
  facts.options.erase("binary_op");
  EXPECT_EQ(plan(facts).method, "Reduce");  // omitted: the sum
  facts.operation = "sum";
  facts.options["binary_op"] = OptionBinding::fixed("max");
  expect_rejected(facts, ErrorKind::InvalidArgument, "binary_op", "broadcast, valid_items, algorithm");
}

TEST(Plan, RejectsSegmentedReduceAndBroadcastOnBlocks) {
  expect_rejected(reduce_call("segmented_reduce", kBlock128, DType::Int32, PayloadKind::Scalar, 1),
                  ErrorKind::UnsupportedOperation, "group", "supports: warp");
  expect_rejected(reduce_call("broadcast", kBlock128, DType::Int32, PayloadKind::Scalar, 1,
                              {{"src_lane", OptionBinding::runtime()}}),
                  ErrorKind::UnsupportedOperation, "group", "supports: warp");
}

TEST(Plan, RejectsShapesAndChoicesCubLacks) {
  expect_rejected(
      reduce_call("broadcast", kWarp8, DType::Int32, PayloadKind::Array, 2, {{"src_lane", OptionBinding::runtime()}}),
      ErrorKind::UnsupportedOperation, "value", "a scalar: ::cub::WarpScan::Broadcast has no ThreadData overload");
  expect_rejected(reduce_call("segmented_reduce", kWarp8, DType::Int32, PayloadKind::Scalar, 1,
                              {{"flags", OptionBinding::fixed("middles")}}),
                  ErrorKind::InvalidArgument, "flags", "one of: heads, tails");
  expect_rejected(reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Scalar, 4), ErrorKind::InvalidArgument,
                  "items_per_thread", "1 for a scalar payload");
  expect_rejected(reduce_call("sum", kBlock128, DType::Bool, PayloadKind::Array, 4), ErrorKind::UnsupportedOperation,
                  "dtype", "one of the dtypes sum supports: int8");
  expect_rejected(
      reduce_call("sum", kWarp8, DType::Int32, PayloadKind::Array, 4, {{"algorithm", OptionBinding::fixed("raking")}}),
      ErrorKind::UnsupportedOperation, "algorithm", "no algorithm: ::cub::WarpReduce has one");
  expect_rejected(reduce_call("sum", kBlock128, DType::Int32, PayloadKind::Array, 4,
                              {{"algorithm", OptionBinding::fixed("warp_scans")}}),
                  ErrorKind::UnsupportedOperation, "algorithm", "warp_reductions, raking, raking_commutative_only");
}

TEST(Plan, RejectsAggregatesThatCannotBe) {
  expect_rejected(reduce_call("inclusive_sum", kBlock128, DType::Int32, PayloadKind::Array, 2,
                              {{"aggregate_output", OptionBinding::fixed("0")}}),
                  ErrorKind::InvalidArgument, "aggregate_output", "a runtime value");
}

TEST(Plan, ChecksTheSourceLane) {
  CallFacts facts = reduce_call("broadcast", Group::this_warp({64, 1, 1}), DType::Int32, PayloadKind::Scalar, 1);
  expect_rejected(facts, ErrorKind::InvalidArgument, "src_lane", "broadcast requires src_lane");
  facts.options["src_lane"] = OptionBinding::fixed("32");
  expect_rejected(facts, ErrorKind::InvalidArgument, "src_lane", "0..31");
  facts.options["src_lane"] = OptionBinding::fixed("31");
  EXPECT_NO_THROW(plan(facts));
}

TEST(Plan, ErrorsNameTheUsersCall) {
  CallFacts facts = block_call("load", "direct");
  facts.items_per_thread = -3;
  facts.where = "copy_tile (kernel.py:12)";
  expect_rejected(facts, ErrorKind::InvalidArgument, "items_per_thread", "-3");
}

// Items per thread, offsets and literals: what a hostile caller or a typo can reach.

TEST(Plan, BoundsItemsPerThreadBeforeTheTileOverflows) {
  CallFacts facts = block_call("load", "direct", {1024, 1, 1});
  facts.items_per_thread = kMaxItemsPerThread;
  const Plan largest = plan(facts);
  EXPECT_EQ(largest.tile_capacity(), 1024LL * kMaxItemsPerThread);
  facts.items_per_thread = kMaxItemsPerThread + 1;
  expect_rejected(facts, ErrorKind::InvalidArgument, "items_per_thread", "at most 512: CUB unrolls over the items");
  // 2^31 - 1 items once made the tile capacity wrap to -128 in the valid_items message.
  facts.items_per_thread = 2147483647;
  facts.options["valid_items"] = OptionBinding::fixed("5");
  expect_rejected(facts, ErrorKind::InvalidArgument, "items_per_thread", "2147483647");
}

// Collects what the engine warns while alive.
class CapturedWarnings {
 public:
  CapturedWarnings() {
    previous_ = set_warning_sink([this](const std::string& text) { texts.push_back(text); });
  }
  ~CapturedWarnings() { set_warning_sink(previous_); }
  std::vector<std::string> texts;

 private:
  WarningSink previous_;
};

TEST(Plan, WarnsOncePerCallAboveTheSlowItemsThreshold) {
  CapturedWarnings warnings;
  CallFacts facts = block_call("load", "direct");
  facts.items_per_thread = kSlowItemsPerThread;
  plan(facts);
  EXPECT_TRUE(warnings.texts.empty());
  facts.items_per_thread = kSlowItemsPerThread + 1;
  facts.where = "slow_kernel (kernel.py:3)";
  plan(facts);
  plan(facts);
  ASSERT_EQ(warnings.texts.size(), 1u);
  EXPECT_NE(warnings.texts[0].find("load (slow_kernel (kernel.py:3)): items_per_thread 129 is above 128"),
            std::string::npos)
      << warnings.texts[0];
}

TEST(Plan, StaticOffsetsAreElementsFromTheStart) {
  CallFacts facts = block_call("load", "direct");
  facts.options["offset"] = OptionBinding::fixed("-5");
  expect_rejected(facts, ErrorKind::InvalidArgument, "offset",
                  "= -5 is not allowed; expected an integer element "
                  "offset >= 0");
  facts.options["offset"] = OptionBinding::fixed("five");
  expect_rejected(facts, ErrorKind::InvalidArgument, "offset", "'five'");
  facts.options["offset"] = OptionBinding::fixed("0");
  EXPECT_NO_THROW(plan(facts));
  facts.options["offset"] = OptionBinding::runtime();
  EXPECT_NO_THROW(plan(facts));
}

// The tile's last byte, (offset + 256 items) x 4 bytes, must fit int64: past it the address wraps.
TEST(Plan, StaticOffsetsKeepThePointerArithmeticInRange) {
  CallFacts facts = block_call("load", "direct");
  facts.options["offset"] = OptionBinding::fixed("2305843009213693695");
  EXPECT_NO_THROW(plan(facts));
  for (const char* offset : {"2305843009213693696", "9223372036854775807"}) {
    facts.options["offset"] = OptionBinding::fixed(offset);
    expect_rejected(facts, ErrorKind::InvalidArgument, "offset",
                    "offset >= 0 and <= 2305843009213693695 (elements from the start of the array; the tile's last "
                    "byte, (offset + 256) x 4 bytes in, must fit a 64-bit pointer offset)");
  }
  facts.dtype = DType::Float64;
  facts.options["offset"] = OptionBinding::fixed("2305843009213693695");
  expect_rejected(facts, ErrorKind::InvalidArgument, "offset", "<= 1152921504606846719");
}

TEST(Plan, UserSymbolsTheSourceCannotDeclareAreRefusedBeforeNvrtc) {
  CallFacts facts = reduce_call("reduce", kBlock128, DType::Int32, PayloadKind::Array, 2, {});
  const std::pair<const char*, const char*> cases[] = {
      {"user:__global__", "(a name reserved to the compiler and its headers)"},
      {"user:a__b", "(a name reserved to the compiler and its headers)"},
      {"user:_Op", "(a name reserved to the compiler and its headers)"},
      {"user:_op", "(a name reserved to the compiler and its headers)"},
      {"user:main", "(main, which no device function may be called)"},
      {"user:while", "(a C++ keyword)"},
      {"user:std", "(a namespace the generated source uses)"},
  };
  for (const auto& [symbol, why] : cases) {
    facts.options["binary_op"] = OptionBinding::fixed(symbol);
    expect_rejected(facts, ErrorKind::InvalidArgument, "binary_op", std::string("'") + symbol + "' " + why);
  }
  for (const char* symbol : {"user:op_", "user:my_op", "user:mainly", "user:cub_op"}) {
    facts.options["binary_op"] = OptionBinding::fixed(symbol);
    EXPECT_NO_THROW(plan(facts)) << symbol;
  }
}

TEST(Plan, FloatLiteralsAreNumbersTheDtypeHolds) {
  CallFacts facts = block_call("load", "direct");
  facts.options["valid_items"] = OptionBinding::runtime();
  const auto oob = [&](DType dtype, const std::string& text) {
    facts.dtype = dtype;
    facts.options["oob_default"] = OptionBinding::fixed(text);
    return facts;
  };
  for (const char* accepted : {"inf", "-inf", "+inf", "Infinity", "-INF", "nan", "-nan", "NaN", "65504", "65519",
                               "-1.5e3", ".5", "5.", "007"}) {
    EXPECT_NO_THROW(plan(oob(DType::Float16, accepted))) << accepted;
  }
  // 65520 is halfway to float16's next power of two and rounds to infinity (to even).
  expect_rejected(oob(DType::Float16, "65520"), ErrorKind::InvalidArgument, "oob_default", "largest finite 65504");
  expect_rejected(oob(DType::Float16, "-1e6"), ErrorKind::InvalidArgument, "oob_default", "float16 holds without");
  expect_rejected(oob(DType::BFloat16, "3.4e38"), ErrorKind::InvalidArgument, "oob_default", "3.3895e38");
  // bfloat16's largest finite is 0x1.fep127; 0x1.ffp127 (3.39617753e38) is halfway to infinity.
  EXPECT_NO_THROW(plan(oob(DType::BFloat16, "3.3961e38")));
  expect_rejected(oob(DType::BFloat16, "3.3962e38"), ErrorKind::InvalidArgument, "oob_default", "3.3895e38");
  expect_rejected(oob(DType::Float32, "3.5e38"), ErrorKind::InvalidArgument, "oob_default", "3.4028e38");
  EXPECT_NO_THROW(plan(oob(DType::Float32, "3.4e38")));
  expect_rejected(oob(DType::Float64, "1e400"), ErrorKind::InvalidArgument, "oob_default", "1.7977e308");
  EXPECT_NO_THROW(plan(oob(DType::Float64, "1e300")));
  for (const char* refused : {"0x10", "nan(1)", "infinit", "1e", "--1", "1,5", " 1", "", "e5"}) {
    expect_rejected(oob(DType::Float32, refused), ErrorKind::InvalidArgument, "oob_default",
                    "a number for float32: decimal, inf, -inf or nan");
  }
}

TEST(Plan, SixtyFourBitIntegerLiteralsUseTheirWholeRange) {
  CallFacts facts = block_call("load", "direct");
  facts.options["valid_items"] = OptionBinding::runtime();
  facts.dtype = DType::UInt64;
  facts.options["oob_default"] = OptionBinding::fixed("18446744073709551615");
  EXPECT_NO_THROW(plan(facts));
  facts.options["oob_default"] = OptionBinding::fixed("18446744073709551616");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "(0..18446744073709551615)");
  facts.dtype = DType::Int64;
  facts.options["oob_default"] = OptionBinding::fixed("-9223372036854775808");
  EXPECT_NO_THROW(plan(facts));
  facts.options["oob_default"] = OptionBinding::fixed("9223372036854775808");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "representable as int64");
  facts.dtype = DType::Int32;
  facts.options["oob_default"] = OptionBinding::fixed("+5");
  expect_rejected(facts, ErrorKind::InvalidArgument, "oob_default", "'+5'");
}

// A batched warp reduction returns ceil(batches / lanes) items per lane, which the plan derives.
TEST(Plan, BatchedWarpReductionDerivesItsResultsPerLane) {
  CallFacts facts = reduce_call("reduce_batched", kWarp8, DType::Float32, PayloadKind::Array, 33);
  const Plan striped = plan(facts);
  EXPECT_EQ(striped.facts.extents.at("BATCHES_PER_LANE"), 5);
  EXPECT_EQ(striped.cub_type, "::cub::WarpReduceBatched<float, 33, 8, false>");
  EXPECT_EQ(striped.method, "ReduceToStriped");
  facts.options["output_layout"] = OptionBinding::fixed("blocked");
  EXPECT_EQ(plan(facts).method, "ReduceToBlocked");
  facts.items_per_thread = 8;
  EXPECT_EQ(plan(facts).facts.extents.at("BATCHES_PER_LANE"), 1);
}

// A run-length window of 2 int16 runs per thread with int32 lengths, 3 decoded items per thread.
CallFacts run_length_window(std::map<std::string, OptionBinding> options) {
  CallFacts facts{"run_length_decode", Group::this_block({64, 1, 1}), DType::Int16, 2, std::move(options),
                  "rld (kernel.py:4)"};
  facts.options.emplace("decoded_items_per_thread", OptionBinding::fixed("3"));
  facts.dtypes["LengthT"] = DType::Int32;
  return facts;
}

TEST(Plan, AnOptionFillingANamedFactFillsItAndRefusesAnArrayGivingAnother) {
  const Plan planned = plan(run_length_window(
      {{"relative_offsets", OptionBinding::runtime()}, {"decoded_offset_dtype", OptionBinding::fixed("uint32")}}));
  EXPECT_EQ(planned.facts.dtypes.at("OffsetT"), DType::UInt32);
  EXPECT_EQ(planned.facts.extents.at("DECODED_ITEMS_PER_THREAD"), 3);
  CallFacts other_dtype = run_length_window(
      {{"relative_offsets", OptionBinding::runtime()}, {"decoded_offset_dtype", OptionBinding::fixed("uint32")}});
  other_dtype.dtypes["OffsetT"] = DType::UInt64;  // the relative offsets passed are uint64
  expect_rejected(other_dtype, ErrorKind::InvalidArgument, "decoded_offset_dtype", "OffsetT of the arrays");
  CallFacts other_extent = run_length_window({{"relative_offsets", OptionBinding::runtime()}});
  other_extent.extents["DECODED_ITEMS_PER_THREAD"] = 4;
  expect_rejected(other_extent, ErrorKind::InvalidArgument, "decoded_items_per_thread", "which is 4 there");
}

// An omitted dtype option yields to the arrays giving its fact, else follows the named dtype it is
// like, at least 32 bits wide (a run-length decode counts in its lengths' dtype).
TEST(Plan, AnOmittedDtypeOptionTakesTheArraysDtypeElseTheOneItFollows) {
  CallFacts typed = run_length_window({{"relative_offsets", OptionBinding::runtime()}});
  typed.dtypes["OffsetT"] = DType::Int64;  // the relative offsets the kernel typed
  EXPECT_EQ(plan(typed).facts.dtypes.at("OffsetT"), DType::Int64);
  EXPECT_EQ(plan(typed).template_arguments[4].second, "::cuda::std::int64_t");
  const std::map<DType, DType> followed = {{DType::Int32, DType::Int32},  {DType::UInt64, DType::UInt64},
                                           {DType::Int8, DType::Int32},   {DType::UInt16, DType::UInt32},
                                           {DType::UInt8, DType::UInt32}, {DType::Int64, DType::Int64},
                                           {DType::Int16, DType::Int32},  {DType::UInt32, DType::UInt32}};
  for (const auto& [lengths, offsets] : followed) {
    CallFacts facts = run_length_window({});
    facts.dtypes["LengthT"] = lengths;
    EXPECT_EQ(plan(facts).facts.dtypes.at("OffsetT"), offsets) << info(lengths).name;
  }
  CallFacts signed_offsets = run_length_window({{"decoded_offset_dtype", OptionBinding::fixed("int16")}});
  EXPECT_EQ(plan(signed_offsets).facts.dtypes.at("OffsetT"), DType::Int16);  // every integer dtype
  signed_offsets.options["decoded_offset_dtype"] = OptionBinding::fixed("float32");
  expect_rejected(signed_offsets, ErrorKind::InvalidArgument, "decoded_offset_dtype", "one of: int8");
}

// An index crosses as the dtype its runtime value has (uint64 whole, any other integer as int64),
// and a static one is 0..2^64 - 1.
TEST(Plan, AnIndexCrossesAsItsValuesDtype) {
  CallFacts runtime = run_length_window({{"decoded_window_offset", OptionBinding::runtime()}});
  const Plan signed_index = plan(runtime);
  EXPECT_EQ(signed_index.facts.dtypes.at("WindowOffsetT"), DType::Int64);  // left out: int64
  runtime.dtypes["WindowOffsetT"] = DType::UInt64;
  const Plan unsigned_index = plan(runtime);
  const auto index = std::find_if(unsigned_index.abi.begin(), unsigned_index.abi.end(),
                                  [](const AbiParam& param) { return param.name == "decoded_window_offset"; });
  ASSERT_NE(index, unsigned_index.abi.end());
  EXPECT_EQ(index->cpp_type, "::cuda::std::uint64_t");
  EXPECT_NE(unsigned_index.key, signed_index.key);
  runtime.dtypes["WindowOffsetT"] = DType::Int32;
  expect_rejected(runtime, ErrorKind::InvalidArgument, "decoded_window_offset", "one of int64, uint64");
  CallFacts largest = run_length_window({{"decoded_window_offset", OptionBinding::fixed("18446744073709551615")}});
  EXPECT_NO_THROW(plan(largest));
  largest.dtypes["WindowOffsetT"] = DType::UInt64;  // a static index reads no dtype
  expect_rejected(largest, ErrorKind::InvalidArgument, "dtypes", "WindowOffsetT");
  CallFacts negative = run_length_window({{"decoded_window_offset", OptionBinding::fixed("-1")}});
  expect_rejected(negative, ErrorKind::InvalidArgument, "decoded_window_offset", "an integer index >= 0");
}

// A device array given as an option (a run-length decode's relative offsets into memory) types its
// named dtype, crosses with its size, and may be a strided view.
TEST(Plan, ADestinationArrayOptionCrossesAsSizedMemory) {
  CallFacts into = run_length_window({{"relative_offsets", OptionBinding::runtime()}});
  into.operation = "run_length_decode_into";
  into.dtypes["OffsetT"] = DType::UInt64;
  const Plan planned = plan(into);
  std::vector<std::string> names;
  for (const auto& param : planned.abi) names.push_back(param.name);
  EXPECT_EQ(names, (std::vector<std::string>{"run_values", "run_lengths", "destination", "destination_size",
                                             "relative_offsets", "relative_offsets_size", "temp_storage"}));
  into.strided_views["relative_offsets"] = 1;
  names.clear();
  for (const auto& param : plan(into).abi) names.push_back(param.name);
  EXPECT_EQ(names[4], "relative_offsets");
  EXPECT_EQ(names[5], "relative_offsets_extent_0");
  into.strided_views = {{"decoded_offset_dtype", 1}};
  expect_rejected(into, ErrorKind::InvalidArgument, "strided view", "destination, relative_offsets");
}

TEST(Plan, AnOptionFillingANamedFactIsNeitherRuntimeNorOmittedWhenRequired) {
  CallFacts runtime = run_length_window({});
  runtime.options["decoded_items_per_thread"] = OptionBinding::runtime();
  expect_rejected(runtime, ErrorKind::InvalidArgument, "decoded_items_per_thread", "a compile-time constant");
  CallFacts omitted = run_length_window({});
  omitted.options.erase("decoded_items_per_thread");
  expect_rejected(omitted, ErrorKind::InvalidArgument, "decoded_items_per_thread", "requires decoded_items_per_thread");
}

TEST(Plan, AValueReturnedOfANamedDtype) {
  CallFacts into = run_length_window({{"decoded_offset_dtype", OptionBinding::fixed("uint64")}});
  into.operation = "run_length_decode_into";
  const Plan planned = plan(into);
  ASSERT_TRUE(planned.result.has_value());
  EXPECT_EQ(planned.result->cpp_type, "::cuda::std::uint64_t");
}

}  // namespace
}  // namespace coop
