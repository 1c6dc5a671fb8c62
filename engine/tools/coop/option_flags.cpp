#include "option_flags.hpp"

#include <algorithm>
#include <utility>

namespace coop::cli {
namespace {

std::string flag_spelling(const std::string& option) {
  std::string flag = "--" + option;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

// A Choice's values and default, over every operation that has it: the same
// name may offer different values (each operation's CUB algorithms).
std::string choice_help(const std::string& option) {
  std::vector<std::string> choices;
  std::vector<std::string> defaults;
  for (const auto& operation : catalog()) {
    const OptionSpec* spec = operation.option(option);
    if (spec == nullptr) continue;
    for (const auto& choice : spec->choices) {
      if (std::find(choices.begin(), choices.end(), choice) == choices.end()) choices.push_back(choice);
    }
    // A dtype option following a named dtype: omitted, that dtype at least 32 bits wide.
    const std::string chosen = spec->default_like.empty()
                                   ? spec->default_choice
                                   : "the --named-dtype " + spec->default_like + " at least 32 bits wide";
    if (std::find(defaults.begin(), defaults.end(), chosen) == defaults.end()) defaults.push_back(chosen);
  }
  const std::string fallback = defaults.size() == 1 ? "default " + defaults.front() : "default per operation";
  return "Compile-time, one of: " + joined(choices) + " (" + fallback + ")";
}

std::string help_for(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::Choice:
      return choice_help(spec.name);
    case OptionType::Count:
      return "An integer count: no value = RUNTIME operand, N = STATIC";
    case OptionType::PayloadScalar:
      return "A value of the payload's dtype: no value = RUNTIME operand, V = STATIC";
    case OptionType::Offset:
      return "Element offset of the tile: no value = RUNTIME operand, N = STATIC";
    case OptionType::Operator:
      return "Operator (compile-time): " + operator_names(spec.needs_associative) + " or " +
             std::string(kUserOperatorPrefix) + "<symbol>";
    case OptionType::PrefixCallback:
      return "Block prefix callback (compile-time): " + std::string(kUserOperatorPrefix) +
             "<symbol>, T symbol(void* state, T block_aggregate)";
    case OptionType::Predicate:
      return "Predicate (compile-time): " + predicate_names() + " or " + std::string(kUserOperatorPrefix) +
             "<symbol>, int symbol(T a, T b)";
    case OptionType::ScalarOutput:
      return "Also write one value of the payload's dtype through a pointer (a RUNTIME operand)";
    case OptionType::Bool:
      return "Compile-time, true or false (default " +
             (spec.default_choice.empty() ? std::string("false") : spec.default_choice) + ")";
    case OptionType::Broadcast:
      return "Compile-time: true (default) gives the result to every thread of the group, false to its first "
             "thread only (CUB's own)";
    case OptionType::PayloadArray:
      if (!spec.array.element.empty()) {
        return "An array shaped like the payload (a RUNTIME operand) of the dtype --named-dtype " + spec.array.element +
               "=DTYPE gives";
      }
      return "An array of " + std::string(info(spec.element).name) + " shaped like the payload (a RUNTIME operand)";
    case OptionType::DestinationArray:
      return "A device array the call writes (a RUNTIME operand), of the dtype " +
             (spec.array.element.empty() ? std::string("--dtype") : "--named-dtype " + spec.array.element + "=DTYPE") +
             " gives";
  }
  return "";
}

std::vector<OptionFlag> generate_flags() {
  std::vector<OptionFlag> flags;
  for (const auto& operation : catalog()) {
    for (const auto& spec : operation.options) {
      const auto named = [&](const OptionFlag& flag) { return flag.option == spec.name; };
      const auto seen = std::find_if(flags.begin(), flags.end(), named);
      if (seen == flags.end()) {
        flags.push_back({spec.name, flag_spelling(spec.name), spec.type, flag_value(spec.type), help_for(spec)});
      } else if (seen->type != spec.type) {  // catalog_test: a kind the flag carries alike (an array)
        seen->help += "; for " + operation.name + ": " + help_for(spec);
      }
    }
  }
  return flags;
}

}  // namespace

FlagValue flag_value(OptionType type) {
  switch (type) {
    case OptionType::Count:
    case OptionType::PayloadScalar:
    case OptionType::Offset:
      return FlagValue::Optional;
    case OptionType::ScalarOutput:
    case OptionType::PayloadArray:
    case OptionType::DestinationArray:
      return FlagValue::None;
    case OptionType::Bool:
    case OptionType::Broadcast:
    case OptionType::Choice:
    case OptionType::Operator:
    case OptionType::PrefixCallback:
    case OptionType::Predicate:
      break;
  }
  return FlagValue::Required;
}

const std::vector<OptionFlag>& option_flags() {
  static const std::vector<OptionFlag> flags = generate_flags();
  return flags;
}

const OptionFlag* find_option_flag(std::string_view option) {
  for (const auto& flag : option_flags()) {
    if (flag.option == option) return &flag;
  }
  return nullptr;
}

std::string option_flag_names() {
  std::vector<std::string> names;
  for (const auto& flag : option_flags()) names.push_back(flag.option);
  return joined(names);
}

}  // namespace coop::cli
