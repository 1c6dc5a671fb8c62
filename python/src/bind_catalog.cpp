// The catalog as the Python layer reads it: each operation's options, their kinds
// and allowed values, so the planner checks arguments by kind instead of keeping
// its own tables of option names.
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
    case OptionType::PayloadOutput:
      return "payload_output";
    case OptionType::ScalarOutput:
      return "scalar_output";
  }
  return "?";
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
  return entry;
}

}  // namespace

void bind_catalog(nb::module_& module) {
  module.def(
      "operation_options",
      [](const std::string& name) {
        const OperationSpec* operation = find_operation(name);
        if (operation == nullptr) {
          reject(ErrorKind::UnsupportedOperation, name, "operation", "'" + name + "'", "one of: " + operation_names());
        }
        nb::list options;
        for (const auto& option : operation->options) options.append(option_dict(option));
        return options;
      },
      "operation"_a,
      "The options of a catalog operation, in order: dicts of name, type (choice, count, payload_scalar, offset, "
      "operator, prefix_callback, payload_output, scalar_output), choices, default, allow_static, allow_runtime, "
      "required.");
}

}  // namespace coop::python
