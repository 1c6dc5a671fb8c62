#include "coop/emit.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "coop/digest.hpp"

namespace coop {
namespace {

// How a plan's pieces are spelled in the translation unit.
struct Names {
  std::string alias;   // using-alias of the CUB specialization
  std::string impl;    // typed, internal-linkage implementation
  std::string symbol;  // extern "C" wrapper in the Numba ABI
};

std::string element_type(const Plan& plan) { return std::string(info(plan.facts.dtype).cpp); }

bool is_half(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

std::string float_literal(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool negative = !lower.empty() && lower.front() == '-';
  const std::string magnitude = (negative || (!lower.empty() && lower.front() == '+')) ? lower.substr(1) : lower;
  if (magnitude.starts_with("nan")) return std::string("(") + (negative ? "-" : "") + "__builtin_nan(\"\"))";
  if (magnitude.starts_with("inf")) return std::string("(") + (negative ? "-" : "") + "__builtin_inf())";
  return "(" + text + ")";
}

// A STATIC payload scalar as a C++ expression of the payload type.
std::string payload_literal(const Plan& plan, const std::string& text) {
  const DType dtype = plan.facts.dtype;
  const DTypeInfo& type = info(dtype);
  if (dtype == DType::Bool) return (text == "true" || text == "1") ? "true" : "false";
  if (dtype == DType::Float16) return "__float2half(static_cast<float>" + float_literal(text) + ")";
  if (dtype == DType::BFloat16) return "__float2bfloat16(static_cast<float>" + float_literal(text) + ")";
  if (type.is_floating) return "static_cast<" + element_type(plan) + ">" + float_literal(text);
  const std::string suffix = type.size == 8 ? (type.name.front() == 'u' ? "ULL" : "LL") : "";
  return "static_cast<" + element_type(plan) + ">(" + text + suffix + ")";
}

std::string static_literal(const Plan& plan, const OptionSpec& option, const std::string& text) {
  if (option.type == OptionType::PayloadScalar) return payload_literal(plan, text);
  if (option.type == OptionType::Offset) return "(" + text + "LL)";
  return text;
}

// The expression passed to CUB for one method argument; "" when OMITTED.
std::string method_argument(const Plan& plan, const std::string& name) {
  for (const auto& option : plan.operation->options) {
    if (option.name != name) continue;
    const OptionBinding bound = plan.facts.option(name);
    if (bound.binding == Binding::Omitted) return "";
    return bound.binding == Binding::Static ? static_literal(plan, option, bound.value) : name;
  }
  std::string operand = name;
  for (const auto& option : plan.operation->options) {
    if (option.type != OptionType::Offset || option.target != name) continue;
    const OptionBinding bound = plan.facts.option(option.name);
    if (bound.binding == Binding::Runtime) operand += " + " + option.name;
    if (bound.binding == Binding::Static) operand += " + " + static_literal(plan, option, bound.value);
  }
  return operand;
}

std::string operand_parameter(const Plan& plan, const OperandSpec& operand) {
  const std::string type = element_type(plan);
  const std::string items = std::to_string(plan.facts.items_per_thread);
  switch (operand.role) {
    case OperandRole::SourceArray:
      return "const " + type + "* " + operand.name;
    case OperandRole::DestinationArray:
      return type + "* " + operand.name;
    case OperandRole::PayloadIn:
      return "const " + type + " (&" + operand.name + ")[" + items + "]";
    case OperandRole::PayloadOut:
    case OperandRole::PayloadInOut:
      return type + " (&" + operand.name + ")[" + items + "]";
  }
  return {};
}

std::string option_parameter(const Plan& plan, const OptionSpec& option) {
  if (option.type == OptionType::PayloadScalar) return element_type(plan) + " " + option.name;
  if (option.type == OptionType::Count) return "int " + option.name;
  return "::cuda::std::int64_t " + option.name;
}

std::vector<const OptionSpec*> runtime_options(const Plan& plan) {
  std::vector<const OptionSpec*> result;
  for (const auto& option : plan.operation->options) {
    if (plan.facts.option(option.name).binding == Binding::Runtime) result.push_back(&option);
  }
  return result;
}

// The calling thread's x-major rank in the block, from the planned block shape.
std::string block_rank(const Plan& plan) {
  const Dim3& block = plan.facts.group.block;
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
  const std::string& fallback = plan.algorithm->unaligned_fallback;
  const int width = store_vector_width(plan.facts.items_per_thread);
  if (fallback.empty() || width == 1) return;
  for (const auto& option : plan.operation->options) {
    if (option.type == OptionType::Count && plan.facts.option(option.name).binding != Binding::Omitted) return;
  }
  std::string rank = block_rank(plan);
  if (plan.facts.group.kind == GroupKind::Warp) rank += " % " + std::to_string(plan.facts.group.width) + "u";
  out << "  if (reinterpret_cast<::cuda::std::uintptr_t>(" << pointer << ") % alignof(::cub::CubVector<"
      << element_type(plan) << ", " << width << ">::Type) != 0) {\n    " << fallback << "(static_cast<int>(" << rank
      << "), " << pointer << ", items);\n    return;\n  }\n";
}

void emit_impl(std::ostream& out, const Plan& plan, const Names& names) {
  std::vector<std::string> params;
  for (const auto& operand : plan.operation->operands) params.push_back(operand_parameter(plan, operand));
  for (const OptionSpec* option : runtime_options(plan)) params.push_back(option_parameter(plan, *option));
  if (plan.needs_scratch) params.push_back(names.alias + "::TempStorage& temp_storage");

  std::vector<std::string> arguments;
  for (const auto& name : plan.operation->method_arguments) {
    std::string argument = method_argument(plan, name);
    if (!argument.empty()) arguments.push_back(std::move(argument));
  }

  out << "static __device__ __forceinline__ void " << names.impl << "(";
  for (std::size_t i = 0; i < params.size(); ++i) out << (i ? ", " : "") << params[i];
  out << ") {\n";
  emit_unaligned_fallback(out, plan, arguments.front());
  out << "  " << names.alias << (plan.needs_scratch ? "(temp_storage)" : "()") << "." << plan.operation->method << "(";
  for (std::size_t i = 0; i < arguments.size(); ++i) out << (i ? ", " : "") << arguments[i];
  out << ");\n}\n\n";
}

// The scratch instance of the calling thread's group: logical warps each own one.
std::string scratch_instance(const Plan& plan, const Names& names) {
  const std::string storage = "static_cast<" + names.alias + "::TempStorage*>(temp_storage)";
  if (plan.facts.group.kind == GroupKind::Block) return "*" + storage;
  return storage + "[" + block_rank(plan) + " / " + std::to_string(plan.facts.group.width) + "u]";
}

void emit_wrapper(std::ostream& out, const Plan& plan, const Names& names) {
  const std::string type = element_type(plan);
  out << "extern \"C\" __device__ int " << names.symbol << "(void* __ret";
  for (const auto& param : plan.abi) {
    out << ", " << (param.kind == AbiKind::Pointer ? "void* " : param.cpp_type + " ") << param.name;
  }
  out << ") {\n";
  std::vector<std::string> arguments;
  for (const auto& operand : plan.operation->operands) {
    const bool payload = operand.role != OperandRole::SourceArray && operand.role != OperandRole::DestinationArray;
    if (payload) {
      arguments.push_back("*static_cast<" + type + " (*)[" + std::to_string(plan.facts.items_per_thread) + "]>(" +
                          operand.name + ")");
    } else {
      arguments.push_back("static_cast<" + type + "*>(" + operand.name + ")");
    }
  }
  for (const OptionSpec* option : runtime_options(plan)) {
    if (option->type == OptionType::Count && option->range == CountRange::ZeroToTileCapacity) {
      // The one check CUB cannot make: a count outside the tile would read or
      // write past it, and narrowing to int could wrap.
      out << "  if (" << option->name << " < 0 || " << option->name << " > " << plan.tile_capacity()
          << ") { __trap(); }\n";
    }
    if (option->type == OptionType::Count) {
      arguments.push_back("static_cast<int>(" + option->name + ")");
    } else if (option->type == OptionType::PayloadScalar && is_half(plan.facts.dtype)) {
      const char* from_bits = plan.facts.dtype == DType::Float16 ? "__ushort_as_half" : "__ushort_as_bfloat16";
      arguments.push_back(std::string(from_bits) + "(" + option->name + ")");
    } else if (option->type == OptionType::PayloadScalar && plan.facts.dtype == DType::Bool) {
      arguments.push_back(option->name + " != 0");
    } else {
      arguments.push_back(option->name);
    }
  }
  if (plan.needs_scratch) arguments.push_back(scratch_instance(plan, names));
  out << "  " << names.impl << "(";
  for (std::size_t i = 0; i < arguments.size(); ++i) out << (i ? ",\n      " : "") << arguments[i];
  out << ");\n  (void)__ret;\n  return 0;\n}\n\n";
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

  std::set<std::string> headers;
  for (const auto& plan : plans) headers.insert(plan.headers.begin(), plan.headers.end());

  std::ostringstream out;
  out << "// Generated by the cuda.coop engine " << engine_version() << " for " << context.arch << ".\n"
      << "// identity " << result.identity << "\n";
  for (const auto& header : headers) out << "#include <" << header << ">\n";
  out << "\n// sizeof/alignof probes: NVRTC's lowered names carry each TempStorage layout.\n"
      << "namespace coop_probe {\ntemplate <unsigned long long Bytes, unsigned long long Align>\n"
      << "__device__ char layout;\n}  // namespace coop_probe\n\n";

  std::map<std::string, std::string> aliases;  // CUB type -> alias
  std::map<std::string, Names> emitted;        // plan key -> names
  for (const auto& plan : plans) {
    auto [alias, new_alias] = aliases.try_emplace(plan.cub_type, "coop_spec_" + std::to_string(aliases.size()));
    if (new_alias) out << "using " << alias->second << " = " << plan.cub_type << ";\n\n";
    auto [names, new_plan] = emitted.try_emplace(plan.key);
    if (new_plan) {
      const std::string short_digest = plan.digest.substr(0, 12);
      names->second = {alias->second, "coop_impl_" + short_digest,
                       "coop_" + plan.facts.operation + "_" + short_digest + "_" + result.identity.substr(0, 8)};
      out << "// " << plan.facts.operation << ": " << plan.facts.group.describe() << ", " << info(plan.facts.dtype).name
          << " x " << plan.facts.items_per_thread << ", " << plan.algorithm->name << "\n";
      emit_impl(out, plan, names->second);
      emit_wrapper(out, plan, names->second);
    }
    result.symbols.push_back(names->second.symbol);
    result.layout_probes.push_back(plan.needs_scratch
                                       ? "&coop_probe::layout<sizeof(" + alias->second + "::TempStorage), alignof(" +
                                             alias->second + "::TempStorage)>"
                                       : "");
  }
  result.text = out.str();
  return result;
}

}  // namespace coop
