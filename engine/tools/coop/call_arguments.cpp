#include "call_arguments.hpp"

#include <algorithm>
#include <charconv>

#include "coop/catalog.hpp"
#include "coop/error.hpp"
#include "coop/plan.hpp"
#include "negative_values.hpp"

namespace coop::cli {

void add_call_options(CLI::App& app, CallArguments& arguments) {
  app.add_option("operation", arguments.operation, "Primitive to plan: " + operation_names())->required();
  app.add_option("--group", arguments.group, "block:X[,Y[,Z]], warp (32 lanes) or warp:N (logical warps of N lanes)")
      ->capture_default_str();
  app.add_option("--block", arguments.block, "Block shape X[,Y[,Z]] that holds a warp group (default 32)");
  app.add_option("--dtype", arguments.dtype, "Payload dtype: " + dtype_names())->capture_default_str();
  app.add_option("--items", arguments.items,
                 "Items per thread, 1 to " + std::to_string(kMaxItemsPerThread) + " (1 with --scalar)")
      ->capture_default_str();
  app.add_option("--algorithm", arguments.algorithm, "CUB algorithm (compile-time)");
  app.add_option("--valid-items", arguments.valid_items, "Partial tile: no value = RUNTIME operand, N = STATIC")
      ->expected(0, 1);
  app.add_option("--oob-default", arguments.oob_default, "Fill for invalid slots: no value = RUNTIME, V = STATIC")
      ->expected(0, 1);
  app.add_option("--offset", arguments.offset, "Element offset of the tile: no value = RUNTIME, N = STATIC")
      ->expected(0, 1);
  app.add_flag("--scalar", arguments.scalar, "One value per thread (passed by value) instead of a ThreadData array");
  app.add_option("--op", arguments.op, "Operator (compile-time): " + operator_names() + " or user:<symbol>");
  app.add_option("--initial-value", arguments.initial_value, "Scan seed: no value = RUNTIME, V = STATIC")
      ->expected(0, 1);
  app.add_option("--src-lane", arguments.src_lane, "Broadcasting lane: no value = RUNTIME, N = STATIC")->expected(0, 1);
  app.add_option("--flags", arguments.flags, "Segment flags (compile-time): heads or tails");
  app.add_option("--prefix-op", arguments.prefix_op,
                 "Block prefix callback (compile-time): user:<symbol>, T symbol(void* state, T block_aggregate)");
  app.add_option("--strided-view", arguments.strided_view,
                 "The memory operand is a strided N-D view of this many dimensions (addressed in C order)");
  app.add_flag("--block-aggregate", arguments.block_aggregate, "Also write the aggregate (a RUNTIME pointer operand)");
  // Not --output: `coop compile -o,--output` names the LTO-IR file.
  app.add_flag("--output-array", arguments.output, "Scan into a second array instead of in place (a RUNTIME operand)");
}

namespace {

OptionBinding binding_of(const std::optional<std::string>& value) {
  if (!value) return OptionBinding::omitted();
  return value->empty() ? OptionBinding::runtime() : OptionBinding::fixed(*value);
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// plan() names a value it refuses; this only refuses what is no int at all.
int parse_items(const std::string& text, const std::string& command) {
  int items = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), items);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    reject(ErrorKind::InvalidArgument, command, "--items", quoted(text),
           "an integer from 1 to " + std::to_string(kMaxItemsPerThread) + " (items per thread)");
  }
  return items;
}

// A block group's shape is its own; --block would be silently ignored.
Group parse_call_group(const CallArguments& arguments, const std::string& command) {
  const Group group =
      parse_group(arguments.group, parse_dim3(arguments.block.value_or("32"), command, "--block"), command);
  if (group.kind == GroupKind::Block && arguments.block) {
    reject(ErrorKind::InvalidArgument, command, "--block", quoted(*arguments.block),
           "no --block with a block group: its shape is the one in --group (" + arguments.group +
               "); --block is the block holding a warp group");
  }
  return group;
}

}  // namespace

CallFacts to_call_facts(const CallArguments& arguments, const std::string& command) {
  if (find_operation(arguments.operation) == nullptr) {
    reject(ErrorKind::UnsupportedOperation, command, "operation", quoted(arguments.operation),
           "one of: " + operation_names());
  }
  CallFacts facts;
  facts.operation = arguments.operation;
  facts.group = parse_call_group(arguments, command);
  const auto dtype = parse_dtype(arguments.dtype);
  if (!dtype)
    reject(ErrorKind::InvalidArgument, command, "--dtype", "'" + arguments.dtype + "'", "one of: " + dtype_names());
  facts.dtype = *dtype;
  facts.items_per_thread = parse_items(arguments.items, command);
  facts.payload = arguments.scalar ? PayloadKind::Scalar : PayloadKind::Array;
  const std::pair<const char*, const std::optional<std::string>*> fixed[] = {{"algorithm", &arguments.algorithm},
                                                                             {"op", &arguments.op},
                                                                             {"flags", &arguments.flags},
                                                                             {"prefix_op", &arguments.prefix_op}};
  for (const auto& [name, value] : fixed) {
    if (value->has_value()) facts.options[name] = OptionBinding::fixed(**value);
  }
  const std::pair<const char*, const std::optional<std::string>*> options[] = {
      {"valid_items", &arguments.valid_items},
      {"oob_default", &arguments.oob_default},
      {"offset", &arguments.offset},
      {"initial_value", &arguments.initial_value},
      {"src_lane", &arguments.src_lane}};
  for (const auto& [name, value] : options) {
    if (value->has_value()) facts.options[name] = binding_of(*value);
  }
  if (arguments.strided_view != 0) {
    const OperationSpec* operation = find_operation(facts.operation);
    for (const auto& operand : operation != nullptr ? operation->operands : std::vector<OperandSpec>{}) {
      if (operand.role == OperandRole::SourceArray || operand.role == OperandRole::DestinationArray)
        facts.strided_views[operand.name] = arguments.strided_view;
    }
    if (facts.strided_views.empty()) facts.strided_views["memory"] = arguments.strided_view;  // plan() names it
  }
  if (arguments.block_aggregate) facts.options["block_aggregate"] = OptionBinding::runtime();
  if (arguments.output) facts.options["output"] = OptionBinding::runtime();
  return facts;
}

CallFacts parse_call_description(const std::string& description, const std::string& command) {
  // CLI11 splits "block:32 at an unmatched quote as if it were closed.
  for (const char quote : {'"', '\''}) {
    if (std::count(description.begin(), description.end(), quote) % 2 != 0) {
      reject(ErrorKind::InvalidArgument, command, "--call", "'" + description + "'",
             std::string("a call description with balanced quotes (an unmatched ") + quote + ")");
    }
  }
  CLI::App app("--call", "call");
  CallArguments arguments;
  add_call_options(app, arguments);
  try {
    const std::vector<std::string> args = attach_negative_values(app, CLI::detail::split_up(description));
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes them last first
  } catch (const CLI::ParseError& error) {
    reject(ErrorKind::InvalidArgument, command, "--call", "'" + description + "'",
           "a call description such as \"store --group block:128 --dtype int32 --items 2\" (" +
               std::string(error.what()) + ")");
  }
  return to_call_facts(arguments, command + " --call");
}

}  // namespace coop::cli
