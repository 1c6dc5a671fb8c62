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
  EXPECT_EQ(option_abi(scalar, {.name = "valid_items", .type = OptionType::Count})[0].value_dtype, "int64");
  EXPECT_EQ(option_abi(scalar, {.name = "offset", .type = OptionType::Offset})[0].value_dtype, "int64");
  EXPECT_EQ(option_abi(scalar, {.name = "initial_value", .type = OptionType::PayloadScalar})[0].value_dtype,
            "bfloat16");
  EXPECT_EQ(scratch_abi().value_dtype, "uint8");
  EXPECT_EQ(result_abi(DType::Complex64).value_dtype, "complex64");
}

// A sized memory array crosses with its element count, and reaches the impl as a Sized<T>; a
// strided view carries its extents already.
TEST(Abi, ASizedArrayCrossesWithItsElementCount) {
  const OperandSpec destination{"destination", OperandRole::DestinationArray, "", {.sized = true}};
  const CallFacts facts{.operation = "run_length_decode_into", .dtype = DType::Int16};
  const std::vector<AbiParam> sized = operand_abi(facts, destination);
  ASSERT_EQ(sized.size(), 2u);
  EXPECT_EQ(sized[1].kind, AbiKind::Size);
  EXPECT_EQ(sized[1].name, "destination_size");
  EXPECT_EQ(sized[1].array, "destination");
  EXPECT_EQ(std::string(to_string(AbiKind::Size)), "size");
  EXPECT_EQ(operand_argument(facts, destination),
            "::coop_adapt::Sized<::cuda::std::int16_t>{static_cast<::cuda::std::int16_t*>(destination), "
            "destination_size}");
  CallFacts view = facts;
  view.strided_views["destination"] = 1;
  EXPECT_EQ(operand_abi(view, destination).size(), 3u);  // pointer, extent, stride: no size
  EXPECT_EQ(memory_parameter_type(view, "destination", DType::Int16, true, false),
            "::coop_adapt::StridedView<::cuda::std::int16_t, 1>");
  EXPECT_EQ(memory_parameter_type(facts, "destination", DType::Int16, false, true), "const ::cuda::std::int16_t*");
}

// A device array given as an option crosses as a memory operand does, of its named element dtype.
TEST(Abi, ADestinationArrayOptionCrossesAsMemory) {
  OptionSpec relative{.name = "relative_offsets", .type = OptionType::DestinationArray};
  relative.array = {.element = "OffsetT", .sized = true};
  CallFacts facts{.operation = "run_length_decode_into", .dtype = DType::Int16};
  facts.dtypes["OffsetT"] = DType::UInt64;
  const std::vector<AbiParam> params = option_abi(facts, relative);
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].value_dtype, "uint64");
  EXPECT_EQ(params[1].kind, AbiKind::Size);
  EXPECT_EQ(option_argument(facts, relative),
            "::coop_adapt::Sized<::cuda::std::uint64_t>{static_cast<::cuda::std::uint64_t*>(relative_offsets), "
            "relative_offsets_size}");
}

// An index crosses as its named dtype (uint64 keeps its values past int64's range), else as int64.
TEST(Abi, AnIndexCrossesAsTheDtypeItsValueHas) {
  OptionSpec index{.name = "decoded_window_offset", .type = OptionType::Offset, .index_dtype = "WindowOffsetT"};
  CallFacts facts{.operation = "run_length_decode", .dtype = DType::Int32};
  facts.dtypes["WindowOffsetT"] = DType::UInt64;
  ASSERT_EQ(option_abi(facts, index).size(), 1u);
  EXPECT_EQ(option_abi(facts, index)[0].value_dtype, "uint64");
  EXPECT_EQ(offset_type(facts, index), "::cuda::std::uint64_t");
  EXPECT_EQ(offset_type(facts, {.name = "offset", .type = OptionType::Offset}), "::cuda::std::int64_t");
}

}  // namespace
}  // namespace coop
