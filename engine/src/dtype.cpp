#include "coop/dtype.hpp"

#include <array>

namespace coop {
namespace {

constexpr std::array kTable = {
    DTypeInfo{DType::Bool, "bool", "bool", "", 1, 1, false, false},
    DTypeInfo{DType::Int8, "int8", "::cuda::std::int8_t", "cuda/std/cstdint", 1, 1, true, false},
    DTypeInfo{DType::Int16, "int16", "::cuda::std::int16_t", "cuda/std/cstdint", 2, 2, true, false},
    DTypeInfo{DType::Int32, "int32", "::cuda::std::int32_t", "cuda/std/cstdint", 4, 4, true, false},
    DTypeInfo{DType::Int64, "int64", "::cuda::std::int64_t", "cuda/std/cstdint", 8, 8, true, false},
    DTypeInfo{DType::UInt8, "uint8", "::cuda::std::uint8_t", "cuda/std/cstdint", 1, 1, true, false},
    DTypeInfo{DType::UInt16, "uint16", "::cuda::std::uint16_t", "cuda/std/cstdint", 2, 2, true, false},
    DTypeInfo{DType::UInt32, "uint32", "::cuda::std::uint32_t", "cuda/std/cstdint", 4, 4, true, false},
    DTypeInfo{DType::UInt64, "uint64", "::cuda::std::uint64_t", "cuda/std/cstdint", 8, 8, true, false},
    DTypeInfo{DType::Float16, "float16", "__half", "cuda_fp16.h", 2, 2, false, true},
    DTypeInfo{DType::BFloat16, "bfloat16", "__nv_bfloat16", "cuda_bf16.h", 2, 2, false, true},
    DTypeInfo{DType::Float32, "float32", "float", "", 4, 4, false, true},
    DTypeInfo{DType::Float64, "float64", "double", "", 8, 8, false, true},
    DTypeInfo{DType::Complex64, "complex64", "::cuda::std::complex<float>", "cuda/std/complex", 8, 8, false, false,
              true},
    DTypeInfo{DType::Complex128, "complex128", "::cuda::std::complex<double>", "cuda/std/complex", 16, 16, false, false,
              true},
};

}  // namespace

const DTypeInfo& info(DType dtype) { return kTable[static_cast<std::size_t>(dtype)]; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& entry : kTable) {
    if (entry.name == name) return entry.dtype;
  }
  return std::nullopt;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = [] {
    std::vector<DType> result;
    for (const auto& entry : kTable) result.push_back(entry.dtype);
    return result;
  }();
  return dtypes;
}

std::string dtype_names() {
  std::string names;
  for (const auto& entry : kTable) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

DType at_least_32_bits(DType dtype) {
  switch (dtype) {
    case DType::Int8:
    case DType::Int16:
      return DType::Int32;
    case DType::UInt8:
    case DType::UInt16:
      return DType::UInt32;
    default:
      return dtype;
  }
}

}  // namespace coop
