#include <gtest/gtest.h>

#include "coop/error.hpp"
#include "coop/plan.hpp"

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
  EXPECT_EQ(load.abi[0], (AbiParam{"source", AbiKind::Pointer, "::cuda::std::int32_t"}));
  EXPECT_EQ(load.abi[1], (AbiParam{"items", AbiKind::Pointer, "::cuda::std::int32_t"}));
  EXPECT_EQ(load.tile_capacity(), 256);
  EXPECT_EQ(load.digest.size(), 64u);
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
  EXPECT_EQ(load.abi.back(), (AbiParam{"temp_storage", AbiKind::Pointer, "unsigned char"}));
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
  EXPECT_EQ(load.abi[2], (AbiParam{"valid_items", AbiKind::Value, "::cuda::std::int64_t"}));
  EXPECT_EQ(load.abi[3], (AbiParam{"oob_default", AbiKind::Value, "::cuda::std::uint16_t"}));
  EXPECT_EQ(load.abi[4], (AbiParam{"offset", AbiKind::Value, "::cuda::std::int64_t"}));
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
  expect_rejected(block_call("lod", "direct"), ErrorKind::UnsupportedOperation, "operation", "one of: load, store");
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
  expect_rejected(facts, ErrorKind::InvalidGroup, "warp width", "power of two from 2 to 32");
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

TEST(Plan, ErrorsNameTheUsersCall) {
  CallFacts facts = block_call("load", "direct");
  facts.items_per_thread = -3;
  facts.where = "copy_tile (kernel.py:12)";
  expect_rejected(facts, ErrorKind::InvalidArgument, "items_per_thread", "-3");
}

}  // namespace
}  // namespace coop
