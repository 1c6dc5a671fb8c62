// The call options' command-line flags, generated from the catalog: an option a
// family adds is a flag of `coop explain` and `coop compile` with no edit here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "coop/catalog.hpp"

namespace coop::cli {

// What a flag carries on the command line, decided by its option's kind.
enum class FlagValue {
  Required,  // Choice, Operator, PrefixCallback: a value, always STATIC
  Optional,  // Count, PayloadScalar, Offset: no value = a RUNTIME operand, a value = STATIC
  None,      // PayloadArray, DestinationArray, ScalarOutput: a switch, a RUNTIME pointer operand
};

FlagValue flag_value(OptionType type);

struct OptionFlag {
  std::string option;  // the catalog's name: "valid_items"
  std::string flag;    // "--valid-items"
  OptionType type;
  FlagValue value;
  std::string help;
};

// One flag per option name across catalog(), in the catalog's order.
const std::vector<OptionFlag>& option_flags();
const OptionFlag* find_option_flag(std::string_view option);
std::string option_flag_names();  // "algorithm, valid_items, ..." for error messages

}  // namespace coop::cli
