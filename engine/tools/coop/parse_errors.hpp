// parse_errors: CLI11's parse errors in the engine's shape, one line naming the
// command, the argument, the value and what is allowed ("--group: 1 required
// TEXT missing" says none of what --group takes).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace coop::cli {

// "coop explain: argument '--group' = (no value) is not allowed; expected ...".
// `app` is the application whose parse failed and `args` what it was given
// (without the program name), to name the subcommand the error arose in.
std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error,
                                 const std::vector<std::string>& args);

}  // namespace coop::cli
