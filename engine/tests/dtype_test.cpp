#include <gtest/gtest.h>

#include "coop/dtype.hpp"

namespace coop {
namespace {

TEST(DType, EveryTypeRoundTripsByName) {
  for (DType dtype : all_dtypes()) {
    const auto parsed = parse_dtype(info(dtype).name);
    ASSERT_TRUE(parsed.has_value()) << info(dtype).name;
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_EQ(all_dtypes().size(), 15u);
}

TEST(DType, SizesAlignmentsAndSpellings) {
  EXPECT_EQ(info(DType::Int8).size, 1);
  EXPECT_EQ(info(DType::Int64).alignment, 8);
  EXPECT_EQ(info(DType::Float16).cpp, "__half");
  EXPECT_EQ(info(DType::Float16).header, "cuda_fp16.h");
  EXPECT_EQ(info(DType::BFloat16).cpp, "__nv_bfloat16");
  EXPECT_EQ(info(DType::UInt32).cpp, "::cuda::std::uint32_t");
  EXPECT_EQ(info(DType::Float64).size, 8);
  EXPECT_TRUE(info(DType::UInt16).is_integer);
  EXPECT_TRUE(info(DType::BFloat16).is_floating);
  EXPECT_FALSE(info(DType::Bool).is_integer);
  EXPECT_EQ(info(DType::Complex128).cpp, "::cuda::std::complex<double>");
  EXPECT_EQ(info(DType::Complex128).alignment, 16);
  EXPECT_TRUE(info(DType::Complex64).is_complex);
  EXPECT_FALSE(info(DType::Complex64).is_floating);
}

TEST(DType, UnknownNamesAreRejected) {
  EXPECT_FALSE(parse_dtype("int33"));
  EXPECT_FALSE(parse_dtype("float"));
  EXPECT_FALSE(parse_dtype(""));
  EXPECT_NE(dtype_names().find("bfloat16"), std::string::npos);
}

}  // namespace
}  // namespace coop
