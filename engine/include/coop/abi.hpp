// The ABI of a generated wrapper: how every value of a call crosses its extern "C"
// signature (`int symbol(void* ret, params...)`, the Numba ABI) and how the wrapper
// turns each parameter back into what the typed implementation takes. Plan, emit and
// the front ends read this one module, so the two sides of the boundary agree.
#pragma once

#include <string>
#include <vector>

#include "coop/call_facts.hpp"
#include "coop/catalog.hpp"
#include "coop/dtype.hpp"

namespace coop {

// One parameter of a generated wrapper after its leading `void* ret` slot. A strided
// view crosses as its data pointer followed by its extents and strides (in elements,
// int64 each), which the front end reads from the array operand named by `array`; a sized
// contiguous array (ArrayType::sized) as its data pointer followed by its element count (Size).
enum class AbiKind { Pointer, Value, Extent, Stride, Size };
struct AbiParam {
  std::string name;
  AbiKind kind;
  std::string cpp_type;  // the value's type, or the pointee's for a pointer
  // The value's dtype as a front end types it (NumPy name), or the pointee's: "int64"
  // for counts, offsets, extents and strides, "int32" for flags, "uint8" for bytes
  // (scratch, a prefix callback's state), the operand's element dtype for payload values
  // (the call's dtype, or the named dtype its type expression gives: ValueT).
  std::string value_dtype;
  std::string array;   // Extent, Stride, Size: the array operand (or option) described
  int dimension = -1;  // Extent, Stride: which dimension
  friend bool operator==(const AbiParam&, const AbiParam&) = default;
};

const char* to_string(AbiKind kind);             // "pointer", "value", "extent", "stride", "size"
std::string c_parameter(const AbiParam& param);  // as the wrapper declares it: "void* source", "int64_t offset"

// Values passed by pointer rather than by value to a user function: a compiler's
// half, complex or tuple and C++'s struct types (records) are not passed alike.
bool passes_by_pointer(DType dtype);

// The C++ type a payload value of `dtype` crosses the wrapper as: 16-bit floats as
// their bits, bool as a byte, a complex value by a pointer to its two parts and a record
// by a pointer to its fields (at its RecordLayout's offsets), since a C++ struct or bool
// by value and a compiler's native half, i1, complex or tuple need not be passed alike.
std::string abi_value_type(DType dtype);

// The payload value of `dtype` that the wrapper's parameter `name` (of abi_value_type) carries.
std::string from_abi_value(DType dtype, const std::string& name);

// Whether a payload operand crosses as one value (a scalar payload's) rather than as an
// array: an operand with a named extent (CounterT[bins]) is an array whatever the payload.
bool payload_by_value(const CallFacts& facts, const OperandSpec& operand);

// Dimensions of the strided view `operand` is, 0 when it is contiguous memory.
int view_dimensions(const CallFacts& facts, const std::string& operand);

// The wrapper parameters that carry one operand or RUNTIME option, and the others it takes.
std::vector<AbiParam> operand_abi(const CallFacts& facts, const OperandSpec& operand);
std::vector<AbiParam> option_abi(const CallFacts& facts, const OptionSpec& option);
AbiParam prefix_state_abi(const OptionSpec& option);  // a bound prefix callback's state
AbiParam scratch_abi();                               // the call's TempStorage
AbiParam result_abi(DType dtype);                     // what `ret` points to, when the call produces a value

// The C++ type the impl takes a strided view of `dimensions` as, and a sized contiguous array as.
std::string view_type(DType dtype, int dimensions);
std::string sized_type(DType dtype);

// The C++ type of the impl's parameter for a memory array (an operand of role SourceArray or
// DestinationArray, an option of type DestinationArray): its view, its sized array, or a pointer.
std::string memory_parameter_type(const CallFacts& facts, const std::string& name, DType dtype, bool sized,
                                  bool read_only);

// The C++ type an Offset option's RUNTIME value crosses and reaches the impl as: its index
// dtype's (OptionSpec::index_dtype), else int64.
std::string offset_type(const CallFacts& facts, const OptionSpec& option);

// The expression the wrapper passes the impl for an operand or RUNTIME option, from
// the parameters operand_abi / option_abi declared for it.
std::string operand_argument(const CallFacts& facts, const OperandSpec& operand);
std::string option_argument(const CallFacts& facts, const OptionSpec& option);

}  // namespace coop
