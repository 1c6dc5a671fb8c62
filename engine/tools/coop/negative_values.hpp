// negative_values: "--initial-value -inf" means the value -inf. CLI11 reads a
// token that starts with '-' and a letter as an option of its own ("-i"), and
// would refuse "-inf" or, for an option whose value is optional, take none.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace coop::cli {

// Joins each long option that takes a value with a following negative number
// ("-5", "-.5", "-inf", "-nan"): "--offset", "-5" becomes "--offset=-5".
// `args` excludes the program name; options are looked up in `app` and, after
// a subcommand's name, in that subcommand.
std::vector<std::string> attach_negative_values(const CLI::App& app, std::vector<std::string> args);

}  // namespace coop::cli
