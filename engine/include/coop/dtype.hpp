// The types a payload can hold, with their C++ spelling, size and alignment: the
// scalar types, and records (a tuple of scalars, a NumPy aligned structured dtype)
// whose fields are scalars, laid out by C's rules.
#pragma once

#include <cstddef>
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
  bool is_record = false;
};

// A record's fields in order, each at the offset C's layout rules give it (each field
// at the next multiple of its alignment; the size a multiple of the largest one). Its
// name is "record(int32,float32,float32)", its C++ spelling a generated struct
// (record_definition) whose layout the compile checks against these numbers.
struct RecordLayout {
  std::vector<DType> fields;
  std::vector<int> offsets;
  int size = 0;
  int alignment = 1;
};

inline constexpr std::size_t kMaxRecordFields = 16;

// The record of `fields` (1..kMaxRecordFields scalar dtypes; nullopt for other lists):
// the same fields give the same DType everywhere in the process. Records are made on first use and kept for the
// process, as the scalar table is (their names carry everything, so a record made from
// its name in another process is the same record).
std::optional<DType> record_dtype(const std::vector<DType>& fields);
const RecordLayout* record_layout(DType dtype);  // nullptr for a scalar dtype
// The C++ struct of a record and the static_asserts holding NVRTC to its layout.
std::string record_definition(DType dtype);

const DTypeInfo& info(DType dtype);
// A scalar's name, or a record's ("record(float32,float32)").
std::optional<DType> parse_dtype(std::string_view name);
const std::vector<DType>& all_dtypes();  // the scalar dtypes
std::string dtype_names();               // "bool, int8, ..." for error messages

// An integer dtype of fewer than 32 bits as the 32-bit one of its signedness (int8 -> int32,
// uint16 -> uint32); any other dtype as it is.
DType at_least_32_bits(DType dtype);

}  // namespace coop
