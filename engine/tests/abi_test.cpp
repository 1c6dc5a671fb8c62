// The ABI module: the type each value crosses a wrapper as, the expression that
// turns it back into the impl's value, and the dtype a front end types it with.
#include <gtest/gtest.h>

#include "coop/abi.hpp"

namespace coop {
namespace {

TEST(Abi, HalvesAndComplexValuesCrossUserFunctionsByPointer) {
  EXPECT_TRUE(passes_by_pointer(DType::Float16));
  EXPECT_TRUE(passes_by_pointer(DType::BFloat16));
  EXPECT_TRUE(passes_by_pointer(DType::Complex64));
  EXPECT_FALSE(passes_by_pointer(DType::Float32));
  EXPECT_FALSE(passes_by_pointer(DType::Int8));
}

TEST(Abi, HalvesCrossAsTheirBitsAndBoolAsAByte) {
  EXPECT_EQ(abi_value_type(DType::Float16), "::cuda::std::uint16_t");
  EXPECT_EQ(abi_value_type(DType::BFloat16), "::cuda::std::uint16_t");
  EXPECT_EQ(abi_value_type(DType::Bool), "::cuda::std::uint8_t");
  EXPECT_EQ(abi_value_type(DType::Int8), "::cuda::std::int8_t");
  EXPECT_EQ(abi_value_type(DType::Float64), "double");
}

TEST(Abi, WrapperTurnsEachAbiValueBackIntoThePayloadValue) {
  EXPECT_EQ(from_abi_value(DType::Float16, "x"), "__ushort_as_half(x)");
  EXPECT_EQ(from_abi_value(DType::BFloat16, "x"), "__ushort_as_bfloat16(x)");
  EXPECT_EQ(from_abi_value(DType::Bool, "x"), "x != 0");
  EXPECT_EQ(from_abi_value(DType::UInt64, "x"), "x");
}

TEST(Abi, EachParameterNamesTheDtypeItsValueHas) {
  const OperandSpec source{"source", OperandRole::SourceArray};
  const CallFacts facts{.operation = "load", .dtype = DType::BFloat16, .strided_views = {{"source", 1}}};
  const std::vector<AbiParam> view = operand_abi(facts, source);
  ASSERT_EQ(view.size(), 3u);
  EXPECT_EQ(view[0].value_dtype, "bfloat16");  // the pointee
  EXPECT_EQ(view[1].value_dtype, "int64");     // extent
  EXPECT_EQ(view[2].value_dtype, "int64");     // stride

  CallFacts scalar = facts;
  scalar.payload = PayloadKind::Scalar;
  EXPECT_EQ(operand_abi(scalar, {"value", OperandRole::PayloadIn})[0].value_dtype, "bfloat16");
  EXPECT_EQ(operand_abi(scalar, {"flag", OperandRole::Flag})[0].value_dtype, "int32");
  EXPECT_EQ(option_abi(scalar, {.name = "valid_items", .type = OptionType::Count}).value_dtype, "int64");
  EXPECT_EQ(option_abi(scalar, {.name = "offset", .type = OptionType::Offset}).value_dtype, "int64");
  EXPECT_EQ(option_abi(scalar, {.name = "initial_value", .type = OptionType::PayloadScalar}).value_dtype, "bfloat16");
  EXPECT_EQ(scratch_abi().value_dtype, "uint8");
  EXPECT_EQ(result_abi(DType::Complex64).value_dtype, "complex64");
}

}  // namespace
}  // namespace coop
