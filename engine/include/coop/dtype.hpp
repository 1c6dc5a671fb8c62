// The scalar types a payload can hold, with their C++ spelling, size and alignment.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coop {

enum class DType {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,   // ::cuda::std::complex<float>
  Complex128,  // ::cuda::std::complex<double>
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;    // NumPy-style name used on the command line and in Python
  std::string_view cpp;     // spelling in generated C++
  std::string_view header;  // header that declares it ("" when built in)
  int size;
  int alignment;
  bool is_integer;
  bool is_floating;
  bool is_complex = false;
};

const DTypeInfo& info(DType dtype);
std::optional<DType> parse_dtype(std::string_view name);
const std::vector<DType>& all_dtypes();
std::string dtype_names();  // "bool, int8, ..." for error messages

// An integer dtype of fewer than 32 bits as the 32-bit one of its signedness (int8 -> int32,
// uint16 -> uint32); any other dtype as it is.
DType at_least_32_bits(DType dtype);

}  // namespace coop
