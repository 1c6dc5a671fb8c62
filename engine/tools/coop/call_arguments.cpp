#include "call_arguments.hpp"

#include <algorithm>
#include <charconv>

#include "coop/catalog.hpp"
#include "coop/error.hpp"
#include "coop/plan.hpp"
#include "negative_values.hpp"
#include "option_flags.hpp"

namespace coop::cli {

namespace {

// One flag per catalog option, taking what the option's kind allows (FlagValue).
void add_option_flags(CLI::App& app, CallArguments& arguments) {
  for (const OptionFlag& flag : option_flags()) {
    CallArguments::GivenOption& given = arguments.options[flag.option];
    switch (flag.value) {
      case FlagValue::Required:
        app.add_option(flag.flag, given.value, flag.help);
        break;
      case FlagValue::Optional:
        app.add_option(flag.flag, given.value, flag.help)->expected(0, 1);
        break;
      case FlagValue::None:
        app.add_flag(flag.flag, given.given, flag.help);
        break;
    }
  }
  app.add_option(
         "--opt", arguments.generic_options,
         "Any option by its catalog name: name=value = STATIC, name alone = RUNTIME (" + option_flag_names() + ")")
      ->allow_extra_args(false);
}

}  // namespace

void add_call_options(CLI::App& app, CallArguments& arguments) {
  app.add_option("operation", arguments.operation, "Primitive to plan: " + operation_names())->required();
  app.add_option("--group", arguments.group,
                 "block:X[,Y[,Z]], warp (32 lanes), warp:N (logical warps of N lanes), warps:N (groups of N warps) or "
                 "cluster:N (clusters of N blocks)")
      ->capture_default_str();
  app.add_option("--block", arguments.block,
                 "Block shape X[,Y[,Z]] that holds a warp group, or a cluster's blocks (default 32)");
  app.add_option("--dtype", arguments.dtype, "Payload dtype: " + dtype_names())->capture_default_str();
  app.add_option("--items", arguments.items,
                 "Items per thread, 1 to " + std::to_string(kMaxItemsPerThread) + " (1 with --scalar)")
      ->capture_default_str();
  app.add_flag("--scalar", arguments.scalar, "One value per thread (passed by value) instead of a ThreadData array");
  app.add_option("--strided-view", arguments.strided_view,
                 "The memory operand is a strided N-D view of this many dimensions (addressed in C order)");
  app.add_option("--named-dtype", arguments.named_dtypes,
                 "NAME=DTYPE: the dtype of an array the catalog types by name (valid_flags' ValidFlagT); repeatable")
      ->allow_extra_args(false);
  app.add_option("--named-extent", arguments.named_extents,
                 "NAME=N: the length of an array the catalog sizes by name (exclusive_digit_prefix's "
                 "digits_per_thread, a histogram's bins); repeatable")
      ->allow_extra_args(false);
  add_option_flags(app, arguments);
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

Group parse_call_group(const CallArguments& arguments, const std::string& command) {
  return parse_group_flags(arguments.group, arguments.block, command);
}

// What each generated flag holds, bound as its kind implies.
void bind_flags(const CallArguments& arguments, CallFacts& facts) {
  for (const OptionFlag& flag : option_flags()) {
    const auto given = arguments.options.find(flag.option);
    if (given == arguments.options.end()) continue;
    if (flag.value == FlagValue::None) {
      if (given->second.given) facts.options[flag.option] = OptionBinding::runtime();
    } else if (given->second.value) {
      // A STATIC-only option keeps "" as its literal, for plan() to name.
      facts.options[flag.option] = flag.value == FlagValue::Required ? OptionBinding::fixed(*given->second.value)
                                                                     : binding_of(*given->second.value);
    }
  }
}

// --opt name=value is STATIC, --opt name RUNTIME; plan() checks what the option allows.
void bind_generic_options(const CallArguments& arguments, const std::string& command, CallFacts& facts) {
  for (const std::string& given : arguments.generic_options) {
    const std::size_t equals = given.find('=');
    const std::string name = given.substr(0, equals);
    if (find_option_flag(name) == nullptr) {
      reject(ErrorKind::InvalidArgument, command, "--opt", quoted(given),
             "name or name=value, the name one of: " + option_flag_names());
    }
    if (facts.options.contains(name)) {
      reject(ErrorKind::InvalidArgument, command, "--opt", quoted(given),
             "each option once (" + name + " is given already, by " + find_option_flag(name)->flag + " or --opt)");
    }
    facts.options[name] =
        equals == std::string::npos ? OptionBinding::runtime() : OptionBinding::fixed(given.substr(equals + 1));
  }
}

// --named-dtype NAME=DTYPE; plan() checks that the call reads NAME and takes DTYPE for it.
void bind_named_dtypes(const CallArguments& arguments, const std::string& command, CallFacts& facts) {
  for (const std::string& given : arguments.named_dtypes) {
    const std::size_t equals = given.find('=');
    const auto dtype = equals == std::string::npos ? std::nullopt : parse_dtype(given.substr(equals + 1));
    if (!dtype || equals == 0) {
      reject(ErrorKind::InvalidArgument, command, "--named-dtype", quoted(given),
             "NAME=DTYPE, the dtype one of: " + dtype_names());
    }
    facts.dtypes[given.substr(0, equals)] = *dtype;
  }
}

// --named-extent NAME=N; plan() checks that the call reads NAME and that N fits it.
void bind_named_extents(const CallArguments& arguments, const std::string& command, CallFacts& facts) {
  for (const std::string& given : arguments.named_extents) {
    const std::size_t equals = given.find('=');
    int extent = 0;
    const char* last = given.data() + given.size();
    const bool parsed = equals != std::string::npos && equals != 0 &&
                        std::from_chars(given.data() + equals + 1, last, extent) == std::from_chars_result{last, {}};
    if (!parsed || extent < 1 || extent > kMaxNamedExtent) {
      reject(ErrorKind::InvalidArgument, command, "--named-extent", quoted(given),
             "NAME=N, N an integer from 1 to " + std::to_string(kMaxNamedExtent));
    }
    facts.extents[given.substr(0, equals)] = extent;
  }
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
  bind_flags(arguments, facts);
  bind_generic_options(arguments, command, facts);
  bind_named_dtypes(arguments, command, facts);
  bind_named_extents(arguments, command, facts);
  if (arguments.strided_view) {  // given, so 0 is refused with -1 and 99 rather than read as contiguous
    const OperationSpec* operation = find_operation(facts.operation);
    for (const auto& operand : operation != nullptr ? operation->operands : std::vector<OperandSpec>{}) {
      if (is_memory(operand.role)) facts.strided_views[operand.name] = *arguments.strided_view;
    }
    if (facts.strided_views.empty()) facts.strided_views["memory"] = *arguments.strided_view;  // plan() names it
  }
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
