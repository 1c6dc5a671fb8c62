#include "call_arguments.hpp"

#include "coop/catalog.hpp"
#include "coop/error.hpp"

namespace coop::cli {

void add_call_options(CLI::App& app, CallArguments& arguments) {
  app.add_option("operation", arguments.operation, "Primitive to plan: " + operation_names())->required();
  app.add_option("--group", arguments.group, "block:X[,Y[,Z]], warp (32 lanes) or warp:N (logical warps of N lanes)")
      ->capture_default_str();
  app.add_option("--block", arguments.block, "Block shape X[,Y[,Z]] that holds a warp group")->capture_default_str();
  app.add_option("--dtype", arguments.dtype, "Payload dtype: " + dtype_names())->capture_default_str();
  app.add_option("--items", arguments.items, "Items per thread")->capture_default_str();
  app.add_option("--algorithm", arguments.algorithm, "CUB algorithm (compile-time)");
  app.add_option("--valid-items", arguments.valid_items, "Partial tile: no value = RUNTIME operand, N = STATIC")
      ->expected(0, 1);
  app.add_option("--oob-default", arguments.oob_default, "Fill for invalid slots: no value = RUNTIME, V = STATIC")
      ->expected(0, 1);
  app.add_option("--offset", arguments.offset, "Element offset of the tile: no value = RUNTIME, N = STATIC")
      ->expected(0, 1);
}

static OptionBinding binding_of(const std::optional<std::string>& value) {
  if (!value) return OptionBinding::omitted();
  return value->empty() ? OptionBinding::runtime() : OptionBinding::fixed(*value);
}

CallFacts to_call_facts(const CallArguments& arguments, const std::string& command) {
  CallFacts facts;
  facts.operation = arguments.operation;
  facts.group = parse_group(arguments.group, parse_dim3(arguments.block, command, "--block"), command);
  const auto dtype = parse_dtype(arguments.dtype);
  if (!dtype)
    reject(ErrorKind::InvalidArgument, command, "--dtype", "'" + arguments.dtype + "'", "one of: " + dtype_names());
  facts.dtype = *dtype;
  facts.items_per_thread = arguments.items;
  if (arguments.algorithm) facts.options["algorithm"] = OptionBinding::fixed(*arguments.algorithm);
  const std::pair<const char*, const std::optional<std::string>*> options[] = {
      {"valid_items", &arguments.valid_items}, {"oob_default", &arguments.oob_default}, {"offset", &arguments.offset}};
  for (const auto& [name, value] : options) {
    if (value->has_value()) facts.options[name] = binding_of(*value);
  }
  return facts;
}

CallFacts parse_call_description(const std::string& description, const std::string& command) {
  CLI::App app("--call", "call");
  CallArguments arguments;
  add_call_options(app, arguments);
  try {
    app.parse(description, false);
  } catch (const CLI::ParseError& error) {
    reject(ErrorKind::InvalidArgument, command, "--call", "'" + description + "'",
           "a call description such as \"store --group block:128 --dtype int32 --items 2\" (" +
               std::string(error.what()) + ")");
  }
  return to_call_facts(arguments, command + " --call");
}

}  // namespace coop::cli
