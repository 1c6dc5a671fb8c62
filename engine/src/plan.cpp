#include "coop/plan.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "coop/digest.hpp"
#include "coop/error.hpp"

namespace coop {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string option_names(const OperationSpec& operation) {
  std::string names;
  for (const auto& option : operation.options) names += (names.empty() ? "" : ", ") + option.name;
  return names;
}

const OperationSpec& require_operation(const CallFacts& facts) {
  const OperationSpec* operation = find_operation(facts.operation);
  if (operation == nullptr) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "operation", quoted(facts.operation),
           "one of: " + operation_names());
  }
  return *operation;
}

const GroupForm& require_form(const OperationSpec& operation, const CallFacts& facts) {
  const GroupForm* form = operation.form(facts.group.kind);
  if (form == nullptr) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "group", facts.group.describe(),
           "a group kind that " + operation.name + " supports");
  }
  return *form;
}

std::optional<long long> parse_integer(const std::string& text) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Checks a STATIC payload scalar fits the payload's dtype exactly.
void check_payload_literal(const CallFacts& facts, const std::string& name, const std::string& text) {
  const DTypeInfo& dtype = info(facts.dtype);
  const std::string expected_integer = "an integer literal representable as " + std::string(dtype.name);
  if (facts.dtype == DType::Bool) {
    if (text != "true" && text != "false" && text != "0" && text != "1") {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text), "true, false, 0 or 1 for bool");
    }
    return;
  }
  if (dtype.is_floating) {
    if (!is_number(text)) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text),
             "a number for " + std::string(dtype.name));
    }
    return;
  }
  const auto value = parse_integer(text);
  if (!value) reject(ErrorKind::InvalidArgument, facts.call_name(), name, quoted(text), expected_integer);
  const int bits = dtype.size * 8;
  const bool is_signed = dtype.name.front() == 'i';
  if (bits < 64) {
    const long long low = is_signed ? -(1LL << (bits - 1)) : 0;
    const long long high = is_signed ? (1LL << (bits - 1)) - 1 : (1LL << bits) - 1;
    if (*value < low || *value > high) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, text,
             expected_integer + " (" + std::to_string(low) + ".." + std::to_string(high) + ")");
    }
  } else if (!is_signed && *value < 0) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), name, text, expected_integer + " (>= 0)");
  }
}

void check_static_value(const CallFacts& facts, const OptionSpec& option, const std::string& text, int tile) {
  switch (option.type) {
    case OptionType::Choice:
      break;  // resolved with the group form, which knows the allowed algorithms
    case OptionType::Count: {
      const auto value = parse_integer(text);
      if (!value) reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), "an integer");
      if (option.range == CountRange::ZeroToTileCapacity && (*value < 0 || *value > tile)) {
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, text,
               "0.." + std::to_string(tile) + " (the tile capacity: items_per_thread x group threads)");
      }
      break;
    }
    case OptionType::Offset:
      if (!parse_integer(text)) {
        reject(ErrorKind::InvalidArgument, facts.call_name(), option.name, quoted(text), "an integer element offset");
      }
      break;
    case OptionType::PayloadScalar:
      check_payload_literal(facts, option.name, text);
      break;
  }
}

void check_options(const CallFacts& facts, const OperationSpec& operation, int tile) {
  for (const auto& [name, bound] : facts.options) {
    const OptionSpec* option = operation.option(name);
    if (option == nullptr) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given",
             "one of the options of " + operation.name + ": " + option_names(operation));
    }
    if (bound.binding == Binding::Runtime && !option->allow_runtime) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "a runtime value", "a compile-time constant");
    }
    if (bound.binding == Binding::Static && !option->allow_static) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "a compile-time constant", "a runtime value");
    }
    if (bound.binding == Binding::Static) check_static_value(facts, *option, bound.value, tile);
    if (bound.binding != Binding::Omitted && !option->requires_option.empty() &&
        facts.option(option->requires_option).binding == Binding::Omitted) {
      reject(ErrorKind::InvalidArgument, facts.call_name(), name, "given without " + option->requires_option,
             name + " only together with " + option->requires_option);
    }
  }
}

const AlgorithmSpec& resolve_algorithm(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form) {
  const OptionSpec* option = operation.option("algorithm");
  const OptionBinding bound = facts.option("algorithm");
  const std::string name = bound.binding == Binding::Static ? bound.value : option->default_choice;
  const AlgorithmSpec* algorithm = find_algorithm(form, name);
  if (algorithm == nullptr) {
    reject(ErrorKind::UnsupportedOperation, facts.call_name(), "algorithm", quoted(name),
           "one of: " + algorithm_names(form) + " (for " + to_string(form.group) + " groups)");
  }
  if (algorithm->needs_whole_warps && facts.group.block.count() % kWarpThreads != 0) {
    reject(ErrorKind::InvalidGroup, facts.call_name(), "block", facts.group.describe(),
           "whole warps (a multiple of 32 threads) for algorithm '" + name + "'");
  }
  return *algorithm;
}

std::string template_argument(TemplateArg arg, const CallFacts& facts, const AlgorithmSpec& algorithm) {
  switch (arg) {
    case TemplateArg::DType:
      return std::string(info(facts.dtype).cpp);
    case TemplateArg::BlockDimX:
      return std::to_string(facts.group.block.x);
    case TemplateArg::BlockDimY:
      return std::to_string(facts.group.block.y);
    case TemplateArg::BlockDimZ:
      return std::to_string(facts.group.block.z);
    case TemplateArg::ItemsPerThread:
      return std::to_string(facts.items_per_thread);
    case TemplateArg::Algorithm:
      return algorithm.cub_enum;
    case TemplateArg::LogicalWarpThreads:
      return std::to_string(facts.group.width);
  }
  return {};
}

const char* template_argument_name(TemplateArg arg) {
  switch (arg) {
    case TemplateArg::DType:
      return "T";
    case TemplateArg::BlockDimX:
      return "BLOCK_DIM_X";
    case TemplateArg::BlockDimY:
      return "BLOCK_DIM_Y";
    case TemplateArg::BlockDimZ:
      return "BLOCK_DIM_Z";
    case TemplateArg::ItemsPerThread:
      return "ITEMS_PER_THREAD";
    case TemplateArg::Algorithm:
      return "ALGORITHM";
    case TemplateArg::LogicalWarpThreads:
      return "LOGICAL_WARP_THREADS";
  }
  return "?";
}

// A 16-bit float crosses the ABI as its bits and a bool as a byte: a C++ struct
// or bool by value and a compiler's native half or i1 need not be passed alike.
std::string abi_value_type(DType dtype) {
  if (dtype == DType::Float16 || dtype == DType::BFloat16) return "::cuda::std::uint16_t";
  if (dtype == DType::Bool) return "::cuda::std::uint8_t";
  return std::string(info(dtype).cpp);
}

std::vector<AbiParam> abi_of(const Plan& plan) {
  const std::string element(info(plan.facts.dtype).cpp);
  std::vector<AbiParam> abi;
  for (const auto& operand : plan.operation->operands) abi.push_back({operand.name, AbiKind::Pointer, element});
  for (const auto& option : plan.operation->options) {
    if (plan.facts.option(option.name).binding != Binding::Runtime) continue;
    const bool payload = option.type == OptionType::PayloadScalar;
    abi.push_back({option.name, AbiKind::Value, payload ? abi_value_type(plan.facts.dtype) : "::cuda::std::int64_t"});
  }
  if (plan.needs_scratch) abi.push_back({"temp_storage", AbiKind::Pointer, "unsigned char"});
  return abi;
}

std::string canonical_key(const Plan& plan) {
  const CallFacts& facts = plan.facts;
  std::string key = "operation=" + facts.operation + ";group=" + to_string(facts.group.kind);
  key += ";block=" + std::to_string(facts.group.block.x) + "," + std::to_string(facts.group.block.y) + "," +
         std::to_string(facts.group.block.z);
  if (facts.group.kind == GroupKind::Warp) key += ";width=" + std::to_string(facts.group.width);
  key +=
      ";dtype=" + std::string(info(facts.dtype).name) + ";items_per_thread=" + std::to_string(facts.items_per_thread);
  key += ";algorithm=" + plan.algorithm->name;
  for (const auto& option : plan.operation->options) {
    if (option.name == "algorithm") continue;
    const OptionBinding bound = facts.option(option.name);
    key += ";" + option.name + "=" + to_string(bound.binding);
    if (bound.binding == Binding::Static) key += ":" + bound.value;
  }
  return key;
}

}  // namespace

const char* to_string(Barrier barrier) {
  switch (barrier) {
    case Barrier::None:
      return "none";
    case Barrier::Block:
      return "block (__syncthreads)";
    case Barrier::Warp:
      return "warp (__syncwarp over the logical warp)";
  }
  return "?";
}

int Plan::tile_capacity() const { return facts.items_per_thread * facts.group.threads(); }

Plan plan(const CallFacts& facts) {
  const OperationSpec& operation = require_operation(facts);
  validate(facts.group, facts.call_name());
  const GroupForm& form = require_form(operation, facts);
  if (facts.items_per_thread < 1) {
    reject(ErrorKind::InvalidArgument, facts.call_name(), "items_per_thread", std::to_string(facts.items_per_thread),
           "an integer >= 1");
  }
  check_options(facts, operation, facts.items_per_thread * facts.group.threads());

  Plan result;
  result.facts = facts;
  result.operation = &operation;
  result.form = &form;
  result.algorithm = &resolve_algorithm(facts, operation, form);

  std::string arguments;
  for (const TemplateArg arg : form.template_args) {
    const std::string value = template_argument(arg, facts, *result.algorithm);
    result.template_arguments.emplace_back(template_argument_name(arg), value);
    arguments += (arguments.empty() ? "" : ", ") + value;
  }
  result.cub_type = form.cub_class + "<" + arguments + ">";

  std::set<std::string> headers = {"cuda/std/cstdint", form.header};
  if (!info(facts.dtype).header.empty()) headers.insert(std::string(info(facts.dtype).header));
  result.headers.assign(headers.begin(), headers.end());

  result.needs_scratch = result.algorithm->needs_scratch;
  result.scratch_instances = result.needs_scratch ? facts.group.instances() : 0;
  if (result.needs_scratch)
    result.reuse_barrier = facts.group.kind == GroupKind::Block ? Barrier::Block : Barrier::Warp;
  result.abi = abi_of(result);
  result.key = canonical_key(result);
  result.digest = sha256_hex(result.key);
  return result;
}

std::string Plan::describe() const {
  std::string text = "operation: " + facts.operation + " (" + operation->family + ")\n";
  text += "group: " + facts.group.describe() + "\n";
  text += "cub: " + cub_type + "::" + operation->method + "\n";
  text += "template arguments:\n";
  for (const auto& [name, value] : template_arguments) text += "  " + name + " = " + value + "\n";
  text += "options:\n";
  for (const auto& option : operation->options) {
    const OptionBinding bound = facts.option(option.name);
    std::string shown = to_string(bound.binding);
    if (option.name == "algorithm")
      shown = "STATIC " + algorithm->name;
    else if (bound.binding == Binding::Static)
      shown += " " + bound.value;
    text += "  " + option.name + ": " + shown + "\n";
  }
  text += "abi: int symbol(void* ret";
  for (const auto& param : abi) {
    text += ", " + (param.kind == AbiKind::Pointer ? param.cpp_type + "* " : param.cpp_type + " ") + param.name;
  }
  text += ")\n";
  text += "scratch: " +
          (needs_scratch ? std::to_string(scratch_instances) + " x sizeof(" + cub_type + "::TempStorage)"
                         : std::string("none")) +
          "\n";
  text += "reuse barrier: " + std::string(to_string(reuse_barrier)) + "\n";
  return text;
}

}  // namespace coop
