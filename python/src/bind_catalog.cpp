// The catalog as the Python layer reads it: each operation's operands and their
// roles, its options, their kinds and allowed values, so the planner reads
// arguments by role and kind instead of keeping its own tables of names.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace coop::python {
namespace {

using namespace nb::literals;

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::Choice:
      return "choice";
    case OptionType::Count:
      return "count";
    case OptionType::PayloadScalar:
      return "payload_scalar";
    case OptionType::Offset:
      return "offset";
    case OptionType::Operator:
      return "operator";
    case OptionType::PrefixCallback:
      return "prefix_callback";
    case OptionType::ScalarOutput:
      return "scalar_output";
    case OptionType::Bool:
      return "bool";
    case OptionType::Broadcast:
      return "broadcast";
    case OptionType::PayloadArray:
      return "payload_array";
    case OptionType::DestinationArray:
      return "destination_array";
    case OptionType::Predicate:
      return "predicate";
  }
  return "?";
}

const char* operand_role_name(OperandRole role) {
  switch (role) {
    case OperandRole::SourceArray:
      return "source_array";
    case OperandRole::DestinationArray:
      return "destination_array";
    case OperandRole::PayloadIn:
      return "payload_in";
    case OperandRole::PayloadOut:
      return "payload_out";
    case OperandRole::PayloadInOut:
      return "payload_inout";
    case OperandRole::Flag:
      return "flag";
    case OperandRole::PayloadResult:
      return "payload_result";
  }
  return "?";
}

const OperationSpec& operation_named(const std::string& name) {
  const OperationSpec* operation = find_operation(name);
  if (operation == nullptr) {
    reject(ErrorKind::UnsupportedOperation, name, "operation", "'" + name + "'", "one of: " + operation_names());
  }
  return *operation;
}

// An array whose dtype or length is a named fact: the front end fills CallFacts.dtypes /
// extents under these names from the array passed. Present only where the catalog names one.
void add_named_facts(nb::dict& entry, const ArrayType& array) {
  if (array.fixed) {
    entry["dtype"] = std::string(info(*array.fixed).name);  // an element dtype CUB fixes (int32 ranks)
  } else if (!array.element.empty()) {
    entry["named_dtype"] = array.element;
  }
  if (!array.extent.empty()) entry["named_extent"] = array.extent;
  // An extent the engine derives from the call's shape, which the front end allocates alike.
  if (array.rule == ExtentRule::BatchesPerLane) entry["extent_rule"] = "batches_per_lane";
}

nb::list operand_list(const OperationSpec& operation) {
  nb::list operands;
  for (const auto& operand : operation.operands) {
    nb::dict entry;
    entry["name"] = operand.name;
    entry["role"] = operand_role_name(operand.role);
    entry["starts_as"] = operand.starts_as;
    // A result returned only under some option values: [(option, value), ...]; absent: always.
    if (!operand.returned_when.empty()) {
      nb::list returned_when;
      for (const auto& [option, value] : operand.returned_when) returned_when.append(nb::make_tuple(option, value));
      entry["returned_when"] = returned_when;
    }
    add_named_facts(entry, operand.array);
    operands.append(entry);
  }
  return operands;
}

nb::dict option_dict(const OptionSpec& option) {
  nb::dict entry;
  entry["name"] = option.name;
  entry["type"] = option_type_name(option.type);
  entry["choices"] = option.choices;
  entry["default"] = option.default_choice;
  entry["allow_static"] = option.allow_static;
  entry["allow_runtime"] = option.allow_runtime;
  entry["required"] = option.required;
  entry["aliases"] = option.aliases;
  // A payload_array's element dtype, when fixed: the front end checks the array holds it.
  entry["element"] = option.type == OptionType::PayloadArray && option.array.element.empty()
                         ? nb::object(nb::str(std::string(info(option.element).name).c_str()))
                         : nb::none();
  add_named_facts(entry, option.array);
  // The named dtype (a choice of dtype names) or extent (a count) the option's value is.
  if (!option.fills_fact.empty()) entry["fills_fact"] = option.fills_fact;
  // An omitted dtype option no array gives the fact of: the named dtype it is like, widened to
  // at least 32 bits (a run-length decode's offsets, like its LengthT).
  if (!option.default_like.empty()) entry["default_like"] = option.default_like;
  // An offset taken whole as an index: the named dtype its runtime value crosses as, which the
  // front end fills (uint64 for an unsigned 64-bit value, else int64).
  if (!option.index_dtype.empty()) entry["index_dtype"] = option.index_dtype;
  // A prefix callback's state crosses the ABI as its own pointer parameter; the
  // front end binds the kernel's state array to it by this name.
  entry["reversed_by"] = option.reversed_by;
  entry["state_parameter"] = option.type == OptionType::PrefixCallback
                                 ? nb::object(nb::str(prefix_state_parameter(option).c_str()))
                                 : nb::none();
  return entry;
}

nb::list option_list(const OperationSpec& operation) {
  nb::list options;
  for (const auto& option : operation.options) options.append(option_dict(option));
  return options;
}

}  // namespace

void bind_catalog(nb::module_& module) {
  module.def(
      "builtin_operators",
      [] {
        nb::list operators;
        for (const auto& op : builtin_operators()) {
          nb::dict entry;
          entry["name"] = op.name;
          entry["aliases"] = op.aliases;
          entry["integers_only"] = op.integers_only;
          entry["needs_order"] = op.needs_order;
          entry["associative"] = op.associative;
          operators.append(entry);
        }
        return operators;
      },
      "The built-in operators an operator option may name: dicts of name, aliases (other spellings the engine "
      "accepts: \"+\", \"add\", ...), integers_only and needs_order.");
  module.def(
      "builtin_predicates",
      [] {
        nb::list predicates;
        for (const auto& predicate : builtin_predicates()) {
          nb::dict entry;
          entry["name"] = predicate.name;
          entry["aliases"] = predicate.aliases;
          entry["needs_order"] = predicate.needs_order;
          predicates.append(entry);
        }
        return predicates;
      },
      "The built-in predicates a predicate option may name: dicts of name, aliases (\"<\", \"lt\", ...) and "
      "needs_order.");
  module.def(
      "operation_options", [](const std::string& name) { return option_list(operation_named(name)); }, "operation"_a,
      "The options of a catalog operation, in order: dicts of name, type (choice, count, payload_scalar, offset, "
      "operator, prefix_callback, scalar_output, bool, broadcast, payload_array, destination_array, predicate), "
      "choices, default, allow_static, allow_runtime, required, aliases (other names a front end accepts), element "
      "(a payload_array's fixed dtype, else None), state_parameter (a prefix callback's ABI state parameter, else "
      "None), and where the catalog names them named_dtype / named_extent (the CallFacts.dtypes / extents name the "
      "array passed fills: \"ValueT\", \"bins\"), fills_fact, default_like (the named dtype an omitted dtype "
      "option follows, widened to 32 bits) and index_dtype (the CallFacts.dtypes name an index's runtime value "
      "fills: uint64 or int64).");
  module.def(
      "operation_operands", [](const std::string& name) { return operand_list(operation_named(name)); }, "operation"_a,
      "The data operands of a catalog operation, in order: dicts of name and role (source_array, "
      "destination_array, payload_in, payload_out, payload_inout, flag, payload_result: a fresh payload the front "
      "end allocates and the call returns), starts_as (the operand a payload_result starts as a copy of, or "
      "\"\"), and where the catalog names them named_dtype / named_extent (the CallFacts.dtypes / extents name "
      "the array passed fills: \"ValueT\", \"bins\").");
  module.def(
      "operation",
      [](const std::string& name) {
        const OperationSpec& operation = operation_named(name);
        nb::dict entry;
        entry["name"] = operation.name;
        entry["family"] = operation.family;
        entry["returns_value"] = operation.returns_value;
        if (!operation.result_dtype.empty()) entry["result_dtype"] = operation.result_dtype;
        entry["identity_on_one_thread"] = operation.identity_on_one_thread;
        entry["scalar_as_one_item"] = operation.scalar_as_one_item;
        entry["operands"] = operand_list(operation);
        entry["options"] = option_list(operation);
        return entry;
      },
      "operation"_a,
      "A catalog operation as one dict: name, family, returns_value, result_dtype (where the value returned "
      "is of a named dtype: its CallFacts.dtypes name), identity_on_one_thread (on a one-thread "
      "group the result is the scalar payload), operands (as operation_operands) and options "
      "(as operation_options).");
}

}  // namespace coop::python
