#include "coop/emit.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "adapters/adapters.hpp"
#include "coop/abi.hpp"
#include "coop/digest.hpp"
#include "coop/error.hpp"
#include "header_trim.hpp"
#include "literal.hpp"

namespace coop {
namespace {

// How a plan's pieces are spelled in the translation unit.
struct Names {
  std::string alias;   // using-alias of the CUB specialization
  std::string impl;    // typed, internal-linkage implementation
  std::string symbol;  // extern "C" wrapper in the Numba ABI
};

std::string element_type(const Plan& plan) { return std::string(info(plan.facts.dtype).cpp); }

// inf and nan as the exact bits of the dtype: NVRTC has no __builtin_inf, and
// these intrinsics need no header beyond the dtype's own. A double's sign bit
// does not fit a long long literal, so its negative values are negated (exact).
std::string special_float(DType dtype, const literal::Float& value) {
  const bool nan = value.kind == literal::Float::Kind::NaN;
  const auto bits = [&](const char* reinterpret, unsigned long long positive, unsigned long long sign) {
    std::ostringstream out;
    out << reinterpret << "(0x" << std::hex << (positive | (value.negative ? sign : 0)) << "U)";
    return out.str();
  };
  switch (dtype) {
    case DType::Float16:
      return bits("__ushort_as_half", nan ? 0x7e00 : 0x7c00, 0x8000);
    case DType::BFloat16:
      return bits("__ushort_as_bfloat16", nan ? 0x7fc0 : 0x7f80, 0x8000);
    case DType::Float32:
      return bits("__uint_as_float", nan ? 0x7fc00000 : 0x7f800000, 0x80000000);
    default:
      return std::string("(") + (value.negative ? "-" : "") + "__longlong_as_double(" +
             (nan ? "0x7ff8000000000000LL" : "0x7ff0000000000000LL") + "))";
  }
}

// A STATIC float (plan checked it) as an expression of the payload type.
std::string float_literal(const Plan& plan, const std::string& text) {
  const literal::Float value = *literal::parse_float(text);
  const DType dtype = plan.facts.dtype;
  if (value.kind != literal::Float::Kind::Finite) return special_float(dtype, value);
  const std::string number = "(" + value.decimal + ")";
  if (dtype == DType::Float16) return "__float2half(static_cast<float>" + number + ")";
  if (dtype == DType::BFloat16) return "__float2bfloat16(static_cast<float>" + number + ")";
  return "static_cast<" + element_type(plan) + ">" + number;
}

// A STATIC integer (plan checked it) in decimal, never the text as given: C++ reads "010" as 8.
std::string integer_literal(const Plan& plan, const std::string& text) {
  const DTypeInfo& type = info(plan.facts.dtype);
  if (plan.facts.dtype == DType::UInt64) return std::to_string(*literal::parse_unsigned(text)) + "ULL";
  const long long value = *literal::parse_signed(text);
  // -9223372036854775808 would negate a literal too large for long long.
  if (value == std::numeric_limits<long long>::min()) return "(-9223372036854775807LL - 1)";
  return std::to_string(value) + (type.size == 8 ? "LL" : "");
}

// A STATIC payload scalar as a C++ expression of the payload type.
std::string payload_literal(const Plan& plan, const std::string& text) {
  const DType dtype = plan.facts.dtype;
  if (dtype == DType::Bool) return (text == "true" || text == "1") ? "true" : "false";
  if (info(dtype).is_floating) return float_literal(plan, text);
  return "static_cast<" + element_type(plan) + ">(" + integer_literal(plan, text) + ")";
}

// The functor struct wrapping a user function's extern "C" symbol.
std::string user_functor(const std::string& symbol) { return "coop_user_op_" + symbol; }
std::string prefix_functor(const std::string& symbol) { return "coop_prefix_op_" + symbol; }
std::string predicate_functor(const std::string& symbol) { return "coop_user_predicate_" + symbol; }

std::string operator_functor(const std::string& text) {
  if (text.starts_with(kUserOperatorPrefix)) return user_functor(text.substr(kUserOperatorPrefix.size())) + "{}";
  return find_operator(text)->functor + "{}";
}

// Whether the option that reverses a predicate (a sort's descending) is set.
bool reversed(const Plan& plan, const OptionSpec& option) {
  if (option.reversed_by.empty()) return false;
  const OptionBinding bound = plan.facts.option(option.reversed_by);
  return bound.binding == Binding::Static && bound.value == "true";
}

// A built-in predicate's functor (its reverse's, when reversed), or the user predicate's,
// its arguments swapped when reversed.
std::string predicate_argument(const Plan& plan, const OptionSpec& option, const std::string& text) {
  const bool reverse = reversed(plan, option);
  if (text.starts_with(kUserOperatorPrefix)) {
    const std::string functor = predicate_functor(text.substr(kUserOperatorPrefix.size()));
    return reverse ? "::coop_adapt::Reversed<" + functor + ">{" + functor + "{}}" : functor + "{}";
  }
  const PredicateSpec* predicate = find_predicate(text);
  return (reverse ? find_predicate(predicate->reversed) : predicate)->functor + "{}";
}

// A STATIC offset (plan checked it): an index past int64's range is an unsigned literal.
std::string offset_literal(const std::string& text) {
  if (const auto value = literal::parse_signed(text)) return "(" + std::to_string(*value) + "LL)";
  return "(" + std::to_string(*literal::parse_unsigned(text)) + "ULL)";
}

std::string static_literal(const Plan& plan, const OptionSpec& option, const std::string& text) {
  if (option.type == OptionType::PayloadScalar) return payload_literal(plan, text);
  if (option.type == OptionType::Offset) return offset_literal(text);
  if (option.type == OptionType::Count) return std::to_string(*literal::parse_signed(text));
  if (option.type == OptionType::Operator) return operator_functor(text);
  if (option.type == OptionType::Predicate) return predicate_argument(plan, option, text);
  if (option.type == OptionType::PrefixCallback) return option.name;  // the impl's local functor (an lvalue)
  return text;
}

// The prefix callbacks bound: CUB takes each by non-const reference, so the impl
// makes a local functor over the state pointer it is given.
std::vector<const OptionSpec*> prefix_callbacks(const Plan& plan) {
  std::vector<const OptionSpec*> result;
  for (const auto& option : plan.operation->options) {
    if (option.type == OptionType::PrefixCallback && plan.facts.option(option.name).binding == Binding::Static)
      result.push_back(&option);
  }
  return result;
}

// The local a scalar payload's result is written to when CUB writes it to an argument.
constexpr const char* kResultLocal = "result";

// An omitted argument with an omitted_value: passed only where a later argument is given.
constexpr const char* kOmittedButNeeded = "\x01omitted";

// A scalar payload's fresh result is the impl's local kResultLocal, not a parameter.
bool is_result_local(const Plan& plan, const OperandSpec& operand) {
  return operand.role == OperandRole::PayloadResult && payload_by_value(plan.facts, operand);
}

bool is_memory_operand(const Plan& plan, const std::string& name) {
  for (const auto& operand : plan.operation->operands) {
    if (operand.name == name) return is_memory(operand.role);
  }
  return false;
}

std::string block_rank(const Plan& plan);

// Where the calling group's tile starts in the memory the kernel passed: each warp
// (logical or physical) of the block addresses its own tile, group g (x-major rank in
// the block / its width) at g x (width x items); the kernel passes the block's origin.
std::string group_tile_origin(const Plan& plan) {
  if (plan.facts.group.kind != GroupKind::Warp) return "";
  const int width = plan.facts.group.width;
  return " + static_cast<long long>(" + block_rank(plan) + " / " + std::to_string(width) + "u) * " +
         std::to_string(1LL * width * plan.facts.items_per_thread) + "LL";
}

// The expression passed to CUB for one method argument; "" when OMITTED.
std::string method_argument(const Plan& plan, const std::string& name) {
  for (const auto& option : plan.operation->options) {
    if (option.name != name) continue;
    const OptionBinding bound = plan.facts.option(name);
    if (bound.binding == Binding::Omitted) return option.omitted_value.empty() ? "" : kOmittedButNeeded;
    return bound.binding == Binding::Static ? static_literal(plan, option, bound.value) : name;
  }
  for (const auto& operand : plan.operation->operands) {
    if (operand.name == name && is_result_local(plan, operand)) return kResultLocal;
  }
  std::string operand = name;
  for (const auto& option : plan.operation->options) {
    if (option.type != OptionType::Offset || option.target != name) continue;
    const OptionBinding bound = plan.facts.option(option.name);
    if (bound.binding == Binding::Runtime) operand += " + " + option.name;
    if (bound.binding == Binding::Static) operand += " + " + static_literal(plan, option, bound.value);
  }
  if (is_memory_operand(plan, name)) operand += group_tile_origin(plan);
  return operand;
}

std::string array_parameter(const std::string& name, DType dtype, int extent) {
  return std::string(info(dtype).cpp) + " (&" + name + ")[" + std::to_string(extent) + "]";
}

// CUB's ThreadData overloads take non-const references even where they only read.
std::string operand_parameter(const Plan& plan, const OperandSpec& operand) {
  const DType dtype = element_dtype(plan.facts, operand);
  const std::string type(info(dtype).cpp);
  switch (operand.role) {
    case OperandRole::SourceArray:
    case OperandRole::DestinationArray:
      return memory_parameter_type(plan.facts, operand.name, dtype, operand.array.sized,
                                   operand.role == OperandRole::SourceArray) +
             " " + operand.name;
    case OperandRole::PayloadIn:
    case OperandRole::PayloadOut:
    case OperandRole::PayloadInOut:
    case OperandRole::PayloadResult:
      if (payload_by_value(plan.facts, operand)) return type + " " + operand.name;
      return array_parameter(operand.name, dtype, array_extent(plan.facts, operand.array));
    case OperandRole::Flag:
      return "int " + operand.name;
  }
  return {};
}

std::string option_parameter(const Plan& plan, const OptionSpec& option) {
  switch (option.type) {
    case OptionType::PayloadScalar:
      return element_type(plan) + " " + option.name;
    case OptionType::Count:
      return "int " + option.name;
    case OptionType::ScalarOutput:
      return element_type(plan) + "& " + option.name;
    case OptionType::PayloadArray:
      return array_parameter(option.name, element_dtype(plan.facts, option), array_extent(plan.facts, option.array));
    case OptionType::DestinationArray:
      return memory_parameter_type(plan.facts, option.name, element_dtype(plan.facts, option), option.array.sized,
                                   false) +
             " " + option.name;
    default:
      return offset_type(plan.facts, option) + " " + option.name;
  }
}

std::vector<const OptionSpec*> runtime_options(const Plan& plan) {
  std::vector<const OptionSpec*> result;
  for (const auto& option : plan.operation->options) {
    if (plan.facts.option(option.name).binding == Binding::Runtime) result.push_back(&option);
  }
  return result;
}

// The calling thread's x-major rank in the block, from the planned block shape.
// The kernel runs with exactly this block, so a dimension of extent 1 has index 0: reading it
// would cost a special-register read per call for nothing (CUB's RowMajorTid skips it too).
std::string block_rank(const Plan& plan) {
  const Dim3& block = plan.facts.group.block;
  if (block.y == 1 && block.z == 1) return "threadIdx.x";
  if (block.z == 1) return "(threadIdx.x + " + std::to_string(block.x) + "u * threadIdx.y)";
  return "(threadIdx.x + " + std::to_string(block.x) + "u * (threadIdx.y + " + std::to_string(block.y) +
         "u * threadIdx.z))";
}

// CUB's vector width for a vectorized store of this payload (block_store.cuh).
int store_vector_width(int items) {
  const int widest = std::min(4, items);
  const bool power_of_two = (widest & (widest - 1)) == 0;
  return power_of_two && items % widest == 0 ? widest : 1;
}

// The full-tile vectorized store writes CUB vectors through the pointer as given.
void emit_unaligned_fallback(std::ostream& out, const Plan& plan, const std::string& pointer) {
  if (plan.algorithm == nullptr) return;
  const std::string& fallback = plan.algorithm->unaligned_fallback;
  const int width = store_vector_width(plan.facts.items_per_thread);
  if (fallback.empty() || width == 1 || !plan.facts.strided_views.empty()) return;  // views take no vectors
  for (const auto& option : plan.operation->options) {
    if (option.type == OptionType::Count && plan.facts.option(option.name).binding != Binding::Omitted) return;
  }
  std::string rank = block_rank(plan);
  if (plan.facts.group.kind == GroupKind::Warp) rank += " % " + std::to_string(plan.facts.group.width) + "u";
  out << "  if (reinterpret_cast<::cuda::std::uintptr_t>(" << pointer << ") % alignof(::cub::CubVector<"
      << element_type(plan) << ", " << width << ">::Type) != 0) {\n    " << fallback << "(static_cast<int>(" << rank
      << "), " << pointer << ", items);\n    return;\n  }\n";
}

// The results that start as a copy of an operand (see OperandSpec::starts_as).
std::vector<const OperandSpec*> fresh_results(const Plan& plan) {
  std::vector<const OperandSpec*> results;
  for (const auto& operand : plan.operation->operands) {
    if (operand.role == OperandRole::PayloadResult && !operand.starts_as.empty()) results.push_back(&operand);
  }
  return results;
}

// " = value" for a scalar result that starts as its operand's value.
std::string fresh_result_start(const Plan& plan) {
  for (const OperandSpec* result : fresh_results(plan)) {
    if (is_result_local(plan, *result)) return " = " + result->starts_as;
  }
  return "";
}

// A fresh array result starts as a copy of its operand, item by item (registers: the
// copies CUB overwrites are dead stores the compiler drops).
void emit_fresh_array_start(std::ostream& out, const Plan& plan) {
  for (const OperandSpec* result : fresh_results(plan)) {
    if (is_result_local(plan, *result)) continue;
    out << "  for (int i = 0; i < " << array_extent(plan.facts, result->array) << "; ++i) " << result->name
        << "[i] = " << result->starts_as << "[i];\n";
  }
}

// A block result broadcast through scratch needs a slot beside CUB's TempStorage.
bool broadcasts_through_scratch(const Plan& plan) {
  return plan.result && plan.broadcasts() && plan.facts.group.kind == GroupKind::Block;
}

// The type of the call's scratch: CUB's TempStorage, or it with the broadcast slot beside.
std::string scratch_type(const Plan& plan, const std::string& alias) {
  if (!broadcasts_through_scratch(plan)) return alias + "::TempStorage";
  return "::coop_adapt::WithResult<" + alias + "::TempStorage, " + element_type(plan) + ">";
}

// The CUB collective's own scratch within it.
std::string cub_scratch(const Plan& plan) {
  return broadcasts_through_scratch(plan) ? "temp_storage.storage" : "temp_storage";
}

// Returns the value CUB gives the group's first thread to every thread of the group.
void emit_broadcast_return(std::ostream& out, const Plan& plan, const std::string& value) {
  if (plan.facts.group.kind == GroupKind::Block) {
    out << "  if (" << block_rank(plan) << " == 0u) temp_storage.result = " << value
        << ";\n  __syncthreads();\n  return temp_storage.result;\n";
    return;
  }
  const std::string width = std::to_string(plan.facts.group.width);
  out << "  return ::cub::ShuffleIndex<" << width << ">(" << value << ", 0, ::cub::WarpMask<" << width << ">(("
      << block_rank(plan) << " % 32u) / " << width << "u));\n";
}

// CUB's arguments, in order: an omitted option is dropped, which selects the shorter
// overload, unless a later argument is given, when it takes its omitted_value.
std::vector<std::string> method_arguments(const Plan& plan) {
  std::vector<std::string> arguments;
  std::vector<std::string> pending;  // omitted, with a value to pass if a later argument comes
  for (const auto& name : plan.operation->method_arguments) {
    std::string argument = method_argument(plan, name);
    if (argument == kOmittedButNeeded) {
      pending.push_back(plan.operation->option(name)->omitted_value);
    } else if (!argument.empty()) {
      arguments.insert(arguments.end(), pending.begin(), pending.end());
      pending.clear();
      arguments.push_back(std::move(argument));
    }
  }
  return arguments;
}

void emit_impl(std::ostream& out, const Plan& plan, const Names& names) {
  std::vector<std::string> params;
  for (const auto& operand : plan.operation->operands) {
    if (!is_result_local(plan, operand)) params.push_back(operand_parameter(plan, operand));
  }
  for (const OptionSpec* option : runtime_options(plan)) params.push_back(option_parameter(plan, *option));
  for (const OptionSpec* option : prefix_callbacks(plan)) params.push_back("void* " + prefix_state_parameter(*option));
  if (plan.needs_scratch) params.push_back(scratch_type(plan, names.alias) + "& temp_storage");

  const std::vector<std::string> arguments = method_arguments(plan);

  const std::string type = element_type(plan);
  // A result CUB does not return, it writes to the output argument (kResultLocal).
  const bool result_argument = plan.result && !plan.operation->returns_value;
  const std::string& named = plan.operation->result_dtype;  // a result of another dtype than the payload's
  const std::string result_type = named.empty() ? type : std::string(info(plan.facts.dtypes.at(named)).cpp);
  out << "static __device__ __forceinline__ " << (plan.result ? result_type : "void") << " " << names.impl << "(";
  for (std::size_t i = 0; i < params.size(); ++i) out << (i ? ", " : "") << params[i];
  out << ") {\n";
  emit_unaligned_fallback(out, plan, arguments.front());
  if (result_argument) out << "  " << type << " " << kResultLocal << fresh_result_start(plan) << ";\n";
  emit_fresh_array_start(out, plan);
  for (const OptionSpec* option : prefix_callbacks(plan)) {
    const std::string symbol = plan.facts.option(option->name).value.substr(kUserOperatorPrefix.size());
    out << "  " << prefix_functor(symbol) << " " << option->name << "{" << prefix_state_parameter(*option) << "};\n";
  }
  const bool broadcast = plan.operation->returns_value && plan.broadcasts() && !plan.form->result_in_every_member;
  constexpr const char* kFirstThreads = "first_thread_result";  // valid in the group's first thread
  out << "  "
      << (broadcast                       ? type + " " + kFirstThreads + " = "
          : plan.operation->returns_value ? "return "
                                          : "")
      << names.alias << (plan.needs_scratch ? "(" + cub_scratch(plan) + ")" : "()") << "." << plan.method << "(";
  for (std::size_t i = 0; i < arguments.size(); ++i) out << (i ? ", " : "") << arguments[i];
  out << ");\n";
  if (broadcast) emit_broadcast_return(out, plan, kFirstThreads);
  if (result_argument) out << "  return " << kResultLocal << ";\n";
  out << "}\n\n";
}

// The scratch instance of the calling thread's group: logical warps each own one; a
// block has one, and so has each block of a cluster.
std::string scratch_instance(const Plan& plan, const Names& names) {
  const std::string storage = "static_cast<" + scratch_type(plan, names.alias) + "*>(temp_storage)";
  const GroupKind kind = plan.facts.group.kind;
  if (kind == GroupKind::Block || kind == GroupKind::Cluster) return "*" + storage;
  return storage + "[" + block_rank(plan) + " / " + std::to_string(plan.facts.group.width) + "u]";
}

// The one check CUB cannot make: a count outside its range would read or write
// past the tile, and narrowing to int could wrap.
void emit_range_check(std::ostream& out, const Plan& plan, const OptionSpec& option) {
  if (option.type != OptionType::Count) return;
  const auto bounds = count_bounds(plan.range_of(option), plan.tile_capacity(), plan.facts.group.threads(),
                                   info(plan.facts.dtype).size * 8);
  if (!bounds) return;
  out << "  if (" << option.name << " < " << bounds->low << " || " << option.name << " > " << bounds->high
      << ") { __trap(); }\n";
}

// A Count's value in the wrapper: its parameter where RUNTIME, else what the plan knows of it.
std::string count_in_wrapper(const Plan& plan, const OptionSpec& option) {
  if (plan.facts.option(option.name).binding == Binding::Runtime) return option.name;
  const auto known = known_count(plan.facts, option);
  return known ? std::to_string(*known) : "";
}

// Counts that must be below another (begin_bit < end_bit), where either is RUNTIME: plan()
// checked the pairs it knows.
void emit_order_checks(std::ostream& out, const Plan& plan) {
  for (const auto& option : plan.operation->options) {
    if (option.less_than.empty()) continue;
    const OptionSpec& upper = *plan.operation->option(option.less_than);
    if (plan.facts.option(option.name).binding != Binding::Runtime &&
        plan.facts.option(upper.name).binding != Binding::Runtime)
      continue;
    // Where one side is known, the other's range check may already keep them in order (an
    // omitted begin_bit 0 below any end_bit of 1..bits; an omitted end_bit, the key's width, above
    // any begin_bit of 0..bits-1).
    const auto range = [&](const OptionSpec& count) {
      return count_bounds(plan.range_of(count), plan.tile_capacity(), plan.facts.group.threads(),
                          info(plan.facts.dtype).size * 8);
    };
    const auto known_low = known_count(plan.facts, option), known_high = known_count(plan.facts, upper);
    const auto upper_range = range(upper), lower_range = range(option);
    if (known_low && upper_range && *known_low < upper_range->low) continue;
    if (known_high && lower_range && lower_range->high < *known_high) continue;
    const std::string low = count_in_wrapper(plan, option), high = count_in_wrapper(plan, upper);
    if (!low.empty() && !high.empty()) out << "  if (!(" << low << " < " << high << ")) { __trap(); }\n";
  }
}

void emit_wrapper(std::ostream& out, const Plan& plan, const Names& names) {
  out << "extern \"C\" __device__ int " << names.symbol << "(void* __ret";
  for (const auto& param : plan.abi) out << ", " << c_parameter(param);
  out << ") {\n";
  std::vector<std::string> arguments;
  for (const auto& operand : plan.operation->operands) {
    if (!is_result_local(plan, operand)) arguments.push_back(operand_argument(plan.facts, operand));
  }
  for (const OptionSpec* option : runtime_options(plan)) {
    emit_range_check(out, plan, *option);
    arguments.push_back(option_argument(plan.facts, *option));
  }
  emit_order_checks(out, plan);
  for (const OptionSpec* option : prefix_callbacks(plan)) arguments.push_back(prefix_state_parameter(*option));
  if (plan.needs_scratch) arguments.push_back(scratch_instance(plan, names));
  out << "  " << (plan.result ? "*static_cast<" + plan.result->cpp_type + "*>(__ret) = " : std::string()) << names.impl
      << "(";
  for (std::size_t i = 0; i < arguments.size(); ++i) out << (i ? ",\n      " : "") << arguments[i];
  out << ");\n" << (plan.result ? "" : "  (void)__ret;\n") << "  return 0;\n}\n\n";
}

// A user predicate's functor: CUB calls it with (a, b) and reads a bool.
void emit_user_predicate(std::ostream& out, const Plan& plan, const ExternalFunction& function) {
  const std::string type = element_type(plan);
  out << function.declaration << "\nstruct " << predicate_functor(function.symbol)
      << " {\n  __device__ __forceinline__ bool operator()(const " << type << "& a, const " << type << "& b) const {\n";
  if (function.by_pointer) {
    out << "    int result;\n    " << type << " a_copy = a;\n    " << type << " b_copy = b;\n    " << function.symbol
        << "(&result, &a_copy, &b_copy);\n    return result != 0;\n";
  } else {
    out << "    return " << function.symbol << "(a, b) != 0;\n";
  }
  out << "  }\n};\n\n";
}

// A user function's declaration and the functor CUB calls: a binary operator,
// or a block prefix callback over its state pointer. Values of 16-bit floats
// cross by pointer (see ExternalFunction::by_pointer).
void emit_user_function(std::ostream& out, const Plan& plan, const ExternalFunction& function) {
  if (function.kind == ExternalFunction::Kind::Predicate) return emit_user_predicate(out, plan, function);
  const std::string type = element_type(plan);
  const bool prefix = function.kind == ExternalFunction::Kind::PrefixCallback;
  out << function.declaration << "\nstruct "
      << (prefix ? prefix_functor(function.symbol) : user_functor(function.symbol)) << " {\n";
  if (prefix) {
    out << "  void* state;\n  __device__ __forceinline__ " << type << " operator()(" << type << " block_aggregate) {\n";
  } else {
    out << "  __device__ __forceinline__ " << type << " operator()(const " << type << "& a, const " << type
        << "& b) const {\n";
  }
  const std::vector<std::string> values =
      prefix ? std::vector<std::string>{"block_aggregate"} : std::vector<std::string>{"a", "b"};
  std::string arguments = prefix ? "state" : "";
  if (function.by_pointer) {
    out << "    " << type << " result;\n";
    for (const auto& value : values) {
      out << "    " << type << " " << value << "_copy = " << value << ";\n";
      arguments += (arguments.empty() ? "&" : ", &") + value + "_copy";
    }
    out << "    " << function.symbol << "(&result, " << arguments << ");\n    return result;\n";
  } else {
    for (const auto& value : values) arguments += (arguments.empty() ? "" : ", ") + value;
    out << "    return " << function.symbol << "(" << arguments << ");\n";
  }
  out << "  }\n};\n\n";
}

// The option that names `function` ("binary_op", "prefix_op", ...).
std::string option_of(const Plan& plan, const ExternalFunction& function) {
  for (const auto& option : plan.operation->options) {
    const OptionBinding bound = plan.facts.option(option.name);
    if (bound.binding == Binding::Static && bound.value == std::string(kUserOperatorPrefix) + function.symbol)
      return option.name;
  }
  return "op";
}

// Each user function once. An extern "C" symbol has one signature, so one bundle
// cannot use a symbol with two dtypes or as two kinds of function.
void emit_user_functions(std::ostream& out, const std::vector<Plan>& plans) {
  std::map<std::string, std::pair<DType, ExternalFunction::Kind>> emitted;
  for (const auto& plan : plans) {
    for (const auto& function : plan.external_functions) {
      const auto [previous, added] = emitted.try_emplace(function.symbol, plan.facts.dtype, function.kind);
      if (added) {
        emit_user_function(out, plan, function);
      } else if (previous->second != std::pair{plan.facts.dtype, function.kind}) {
        reject(ErrorKind::InvalidArgument, plan.facts.call_name(), option_of(plan, function),
               "'user:" + function.symbol + "'",
               "one dtype and one role per user function symbol in a bundle (it is also used with " +
                   std::string(info(previous->second.first).name) + ")");
      }
    }
  }
}

bool reverses_a_user_predicate(const Plan& plan) {
  for (const auto& option : plan.operation->options) {
    const OptionBinding bound = plan.facts.option(option.name);
    if (option.type == OptionType::Predicate && bound.value.starts_with(kUserOperatorPrefix) && reversed(plan, option))
      return true;
  }
  return false;
}

// Each record a plan uses, once, before anything that names it.
void emit_records(std::ostream& out, const std::vector<Plan>& plans) {
  std::set<std::string> emitted;
  for (const auto& plan : plans) {
    std::vector<DType> dtypes = {plan.facts.dtype};
    for (const auto& [name, dtype] : plan.facts.dtypes) dtypes.push_back(dtype);
    for (const DType dtype : dtypes) {
      if (info(dtype).is_record && emitted.insert(std::string(info(dtype).name)).second)
        out << record_definition(dtype) << "\n";
    }
  }
}

// Whether the plan passes a contiguous memory array with its size (ArrayType::sized).
bool passes_sized_memory(const Plan& plan) {
  const auto sized = [&](const std::string& name, const ArrayType& array) {
    return array.sized && view_dimensions(plan.facts, name) == 0;
  };
  for (const auto& operand : plan.operation->operands) {
    if (is_memory(operand.role) && sized(operand.name, operand.array)) return true;
  }
  for (const OptionSpec* option : runtime_options(plan)) {
    if (option->type == OptionType::DestinationArray && sized(option->name, option->array)) return true;
  }
  return false;
}

void emit_adapters(std::ostream& out, const std::vector<Plan>& plans) {
  const bool views =
      std::any_of(plans.begin(), plans.end(), [](const Plan& plan) { return !plan.facts.strided_views.empty(); });
  if (views) out << adapters::source("strided_view") << "\n";
  if (std::any_of(plans.begin(), plans.end(), passes_sized_memory)) out << adapters::source("sized") << "\n";
  if (std::any_of(plans.begin(), plans.end(), broadcasts_through_scratch))
    out << adapters::source("with_result") << "\n";
  if (std::any_of(plans.begin(), plans.end(), reverses_a_user_predicate)) out << adapters::source("reversed") << "\n";
  std::set<const ClassAdapter*> emitted;
  for (const auto& plan : plans) {
    if (plan.adapter != nullptr && emitted.insert(plan.adapter).second) out << plan.adapter->source << "\n";
  }
}

// "reduce: block(128,1,1), float32 x 4, raking, op max": the comment above a plan's code.
std::string summary(const Plan& plan) {
  const CallFacts& facts = plan.facts;
  std::string text =
      facts.operation + ": " + facts.group.describe() + ", " + std::string(info(facts.dtype).name) +
      (facts.payload == PayloadKind::Scalar ? " scalar" : " x " + std::to_string(facts.items_per_thread));
  for (const auto& [name, dtype] : facts.dtypes) text += ", " + name + " " + std::string(info(dtype).name);
  for (const auto& [name, extent] : facts.extents) text += ", " + name + " " + std::to_string(extent);
  if (plan.algorithm != nullptr) text += ", " + plan.algorithm->name;
  for (const auto& [name, dimensions] : facts.strided_views) {
    text += ", " + name + " a strided " + std::to_string(dimensions) + "-D view";
  }
  for (const auto& option : plan.operation->options) {
    const OptionBinding bound = facts.option(option.name);
    const bool shown = option.type == OptionType::Operator || option.type == OptionType::PrefixCallback ||
                       option.type == OptionType::Predicate ||
                       (option.type == OptionType::Choice && option.name != "algorithm") ||
                       option.type == OptionType::Bool;
    if (shown && bound.binding == Binding::Static) text += ", " + option.name + " " + bound.value;
  }
  return text;
}

// The index of the layout probe of a call's scratch type, added on first use.
int probe_index(std::vector<std::string>& probes, const std::string& scratch) {
  const std::string probe = "&coop_probe::layout<sizeof(" + scratch + "), alignof(" + scratch + ")>";
  const auto found = std::find(probes.begin(), probes.end(), probe);
  if (found != probes.end()) return static_cast<int>(found - probes.begin());
  probes.push_back(probe);
  return static_cast<int>(probes.size()) - 1;
}

std::string identity_of(const std::vector<Plan>& plans, const EmitContext& context) {
  std::set<std::string> keys;
  for (const auto& plan : plans) keys.insert(plan.key);
  Sha256 digest;
  digest.field(engine_version()).field(context.toolkit_identity).field(context.arch);
  for (const auto& key : keys) digest.field(key);
  return digest.hex();
}

}  // namespace

const char* engine_version() { return COOP_ENGINE_VERSION; }

EmittedSource emit(const std::vector<Plan>& plans, const EmitContext& context) {
  EmittedSource result;
  result.identity = identity_of(plans, context);

  std::set<std::string> headers, nvrtc_options;
  for (const auto& plan : plans) {
    headers.insert(plan.headers.begin(), plan.headers.end());
    nvrtc_options.insert(plan.form->nvrtc_options.begin(), plan.form->nvrtc_options.end());
  }
  result.nvrtc_options.assign(nvrtc_options.begin(), nvrtc_options.end());

  std::ostringstream out;
  out << "// Generated by the cuda.coop engine " << engine_version() << " for " << context.arch << ".\n"
      << "// identity " << result.identity << "\n";
  if (context.trim_headers) out << "// Kept out of the parse: what no call here uses.\n" << trimmed_headers();
  for (const auto& header : headers) out << "#include <" << header << ">\n";
  out << "\n// sizeof/alignof probes: NVRTC's lowered names carry each TempStorage layout.\n"
      << "namespace coop_probe {\ntemplate <unsigned long long Bytes, unsigned long long Align>\n"
      << "__device__ char layout;\n}  // namespace coop_probe\n\n";
  emit_records(out, plans);
  emit_adapters(out, plans);
  emit_user_functions(out, plans);

  std::map<std::string, std::string> aliases;  // call type -> alias
  std::map<std::string, Names> emitted;        // plan key -> names
  for (const auto& plan : plans) {
    auto [alias, new_alias] = aliases.try_emplace(plan.call_type, "coop_spec_" + std::to_string(aliases.size()));
    if (new_alias) out << "using " << alias->second << " = " << plan.call_type << ";\n\n";
    auto [names, new_plan] = emitted.try_emplace(plan.key);
    if (new_plan) {
      const std::string short_digest = plan.digest.substr(0, 12);
      names->second = {alias->second, "coop_impl_" + short_digest,
                       "coop_" + plan.facts.operation + "_" + short_digest + "_" + result.identity.substr(0, 8)};
      out << "// " << summary(plan) << "\n";
      emit_impl(out, plan, names->second);
      emit_wrapper(out, plan, names->second);
    }
    result.symbols.push_back(names->second.symbol);
    result.probe_of_plan.push_back(
        plan.needs_scratch ? probe_index(result.layout_probes, scratch_type(plan, alias->second)) : -1);
  }
  result.text = out.str();
  return result;
}

}  // namespace coop
