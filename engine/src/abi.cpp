#include "coop/abi.hpp"

namespace coop {
namespace {

constexpr const char* kInt64 = "::cuda::std::int64_t";
constexpr const char* kInt32 = "::cuda::std::int32_t";
constexpr const char* kByte = "unsigned char";

std::string cpp_of(DType dtype) { return std::string(info(dtype).cpp); }
std::string name_of(DType dtype) { return std::string(info(dtype).name); }

// A complex value or a record: a C++ struct, which a compiler's aggregate need not match when passed by value.
bool by_address(DType dtype) { return info(dtype).is_complex || info(dtype).is_record; }

AbiParam pointer_to(const std::string& name, DType dtype) {
  return {name, AbiKind::Pointer, cpp_of(dtype), name_of(dtype)};
}
AbiParam bytes(const std::string& name) { return {name, AbiKind::Pointer, kByte, "uint8"}; }
AbiParam int64_value(const std::string& name) { return {name, AbiKind::Value, kInt64, "int64"}; }

// A strided view's extents, then its strides: one int64 each per dimension.
void add_view_metadata(std::vector<AbiParam>& params, const std::string& array, int dimensions) {
  for (const AbiKind kind : {AbiKind::Extent, AbiKind::Stride}) {
    for (int dimension = 0; dimension < dimensions; ++dimension) {
      params.push_back(
          {array + "_" + to_string(kind) + "_" + std::to_string(dimension), kind, kInt64, "int64", array, dimension});
    }
  }
}

// A memory array's parameters: its pointer, then a view's extents and strides or a sized array's size.
std::vector<AbiParam> memory_abi(const CallFacts& facts, const std::string& name, DType dtype, bool sized) {
  std::vector<AbiParam> params = {pointer_to(name, dtype)};
  const int dimensions = view_dimensions(facts, name);
  add_view_metadata(params, name, dimensions);
  if (sized && dimensions == 0) params.push_back({name + "_size", AbiKind::Size, kInt64, "int64", name});
  return params;
}

// An array of `extent` items of `dtype` (a ThreadData, CounterT[bins]) the wrapper receives as void*.
std::string array_argument(const std::string& name, DType dtype, int extent) {
  return "*static_cast<" + cpp_of(dtype) + " (*)[" + std::to_string(extent) + "]>(" + name + ")";
}

// A strided view from the pointer, extents and strides its wrapper receives.
std::string view_argument(const std::string& name, DType dtype, int dimensions) {
  std::string extents, strides;
  for (int dimension = 0; dimension < dimensions; ++dimension) {
    const std::string suffix = "_" + std::to_string(dimension);
    extents += (dimension ? ", " : "") + name + "_extent" + suffix;
    strides += (dimension ? ", " : "") + name + "_stride" + suffix;
  }
  return view_type(dtype, dimensions) + "{static_cast<" + cpp_of(dtype) + "*>(" + name + "), {" + extents + "}, {" +
         strides + "}}";
}

// A memory array from the parameters memory_abi declared for it.
std::string memory_argument(const CallFacts& facts, const std::string& name, DType dtype, bool sized) {
  if (const int dimensions = view_dimensions(facts, name); dimensions > 0) {
    return view_argument(name, dtype, dimensions);
  }
  const std::string pointer = "static_cast<" + cpp_of(dtype) + "*>(" + name + ")";
  return sized ? sized_type(dtype) + "{" + pointer + ", " + name + "_size}" : pointer;
}

}  // namespace

const char* to_string(AbiKind kind) {
  switch (kind) {
    case AbiKind::Pointer:
      return "pointer";
    case AbiKind::Value:
      return "value";
    case AbiKind::Extent:
      return "extent";
    case AbiKind::Stride:
      return "stride";
    case AbiKind::Size:
      return "size";
  }
  return "?";
}

std::string c_parameter(const AbiParam& param) {
  return (param.kind == AbiKind::Pointer ? std::string("void* ") : param.cpp_type + " ") + param.name;
}

bool passes_by_pointer(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16 || by_address(dtype); }

std::string abi_value_type(DType dtype) {
  if (by_address(dtype)) return "const void*";
  if (dtype == DType::Float16 || dtype == DType::BFloat16) return "::cuda::std::uint16_t";
  if (dtype == DType::Bool) return "::cuda::std::uint8_t";
  return cpp_of(dtype);
}

std::string from_abi_value(DType dtype, const std::string& name) {
  if (by_address(dtype)) return "*static_cast<const " + cpp_of(dtype) + "*>(" + name + ")";
  if (dtype == DType::Float16) return "__ushort_as_half(" + name + ")";
  if (dtype == DType::BFloat16) return "__ushort_as_bfloat16(" + name + ")";
  if (dtype == DType::Bool) return name + " != 0";
  return name;
}

int view_dimensions(const CallFacts& facts, const std::string& operand) {
  const auto found = facts.strided_views.find(operand);
  return found == facts.strided_views.end() ? 0 : found->second;
}

bool payload_by_value(const CallFacts& facts, const OperandSpec& operand) {
  return facts.payload == PayloadKind::Scalar && operand.array.extent.empty();
}

std::vector<AbiParam> operand_abi(const CallFacts& facts, const OperandSpec& operand) {
  const DType dtype = element_dtype(facts, operand);
  switch (operand.role) {
    case OperandRole::SourceArray:
    case OperandRole::DestinationArray:
      return memory_abi(facts, operand.name, dtype, operand.array.sized);
    case OperandRole::PayloadIn:
    case OperandRole::PayloadOut:
    case OperandRole::PayloadInOut:
      if (payload_by_value(facts, operand))
        return {{operand.name, AbiKind::Value, abi_value_type(dtype), name_of(dtype)}};
      return {pointer_to(operand.name, dtype)};
    case OperandRole::Flag:
      return {{operand.name, AbiKind::Value, kInt32, "int32"}};
    case OperandRole::PayloadResult:  // a scalar's is the result slot
      if (payload_by_value(facts, operand)) return {};
      return {pointer_to(operand.name, dtype)};
  }
  return {};
}

std::vector<AbiParam> option_abi(const CallFacts& facts, const OptionSpec& option) {
  switch (option.type) {
    case OptionType::PayloadScalar:
      return {{option.name, AbiKind::Value, abi_value_type(facts.dtype), name_of(facts.dtype)}};
    case OptionType::ScalarOutput:
      return {pointer_to(option.name, facts.dtype)};
    case OptionType::PayloadArray:
      return {pointer_to(option.name, element_dtype(facts, option))};
    case OptionType::DestinationArray:
      return memory_abi(facts, option.name, element_dtype(facts, option), option.array.sized);
    case OptionType::Offset:
      if (option.index_dtype.empty()) return {int64_value(option.name)};
      return {{option.name, AbiKind::Value, offset_type(facts, option), name_of(facts.dtypes.at(option.index_dtype))}};
    default:  // counts
      return {int64_value(option.name)};
  }
}

std::string offset_type(const CallFacts& facts, const OptionSpec& option) {
  if (option.index_dtype.empty()) return kInt64;
  return cpp_of(facts.dtypes.at(option.index_dtype));
}

AbiParam prefix_state_abi(const OptionSpec& option) { return bytes(prefix_state_parameter(option)); }
AbiParam scratch_abi() { return bytes("temp_storage"); }
AbiParam result_abi(DType dtype) { return pointer_to("result", dtype); }

std::string view_type(DType dtype, int dimensions) {
  return "::coop_adapt::StridedView<" + cpp_of(dtype) + ", " + std::to_string(dimensions) + ">";
}

std::string sized_type(DType dtype) { return "::coop_adapt::Sized<" + cpp_of(dtype) + ">"; }

std::string memory_parameter_type(const CallFacts& facts, const std::string& name, DType dtype, bool sized,
                                  bool read_only) {
  if (const int dimensions = view_dimensions(facts, name); dimensions > 0) return view_type(dtype, dimensions);
  if (sized) return sized_type(dtype);
  return (read_only ? "const " : "") + cpp_of(dtype) + "*";
}

std::string operand_argument(const CallFacts& facts, const OperandSpec& operand) {
  const DType dtype = element_dtype(facts, operand);
  if (is_memory(operand.role)) return memory_argument(facts, operand.name, dtype, operand.array.sized);
  if (operand.role == OperandRole::Flag) return "static_cast<int>(" + operand.name + ")";
  if (payload_by_value(facts, operand)) return from_abi_value(dtype, operand.name);
  return array_argument(operand.name, dtype, array_extent(facts, operand.array));
}

std::string option_argument(const CallFacts& facts, const OptionSpec& option) {
  switch (option.type) {
    case OptionType::Count:
      return "static_cast<int>(" + option.name + ")";  // range-checked by the wrapper before narrowing
    case OptionType::PayloadScalar:
      return from_abi_value(facts.dtype, option.name);
    case OptionType::ScalarOutput:
      return "*static_cast<" + cpp_of(facts.dtype) + "*>(" + option.name + ")";
    case OptionType::PayloadArray:
      return array_argument(option.name, element_dtype(facts, option), array_extent(facts, option.array));
    case OptionType::DestinationArray:
      return memory_argument(facts, option.name, element_dtype(facts, option), option.array.sized);
    default:  // an offset: as the impl takes it
      return option.name;
  }
}

}  // namespace coop
