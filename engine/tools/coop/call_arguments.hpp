// A primitive call described on the command line, as the CLI's subcommands share it:
//   load --group block:128 --dtype int32 --items 2 --algorithm direct --valid-items
//   reduce --group warp:8 --block 64 --dtype float32 --scalar --op max
// The options' flags come from the catalog (option_flags.hpp); --opt name[=value]
// names any option by its catalog name.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coop/call_facts.hpp"

namespace coop::cli {

struct CallArguments {
  std::string operation;
  std::string group = "block:128";
  std::optional<std::string> block;  // the block holding a warp group; 32 threads when omitted
  std::string dtype = "int32";
  std::string items = "1";          // parsed here, so "" or 99999999999 is named like any bad value
  bool scalar = false;              // one value per thread instead of a ThreadData array
  std::optional<int> strided_view;  // dimensions of the memory operand's strided view; none: contiguous
  // The catalog's options (option_flags.hpp), by option name: a flag that takes a
  // value holds it ("" when an optional value is left out); a switch sets `given`.
  struct GivenOption {
    std::optional<std::string> value;
    bool given = false;
  };
  std::map<std::string, GivenOption> options;
  std::vector<std::string> generic_options;  // --opt name[=value], in order
  std::vector<std::string> named_dtypes;     // --named-dtype NAME=DTYPE: CallFacts::dtypes
  std::vector<std::string> named_extents;    // --named-extent NAME=N: CallFacts::extents
};

// Adds the call's positional operation and its options to `app`.
void add_call_options(CLI::App& app, CallArguments& arguments);

// Throws coop::Error naming the argument when a value is malformed.
CallFacts to_call_facts(const CallArguments& arguments, const std::string& command);

// Parses one --call "<description>" string into CallFacts.
CallFacts parse_call_description(const std::string& description, const std::string& command);

}  // namespace coop::cli
