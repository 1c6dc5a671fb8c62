#include "parse_errors.hpp"

#include <algorithm>
#include <cctype>

namespace coop::cli {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// The subcommand the parse reached, and its full name ("coop cache").
struct Scope {
  const CLI::App* app;
  std::string command;
  std::size_t next_argument;  // index in args after the subcommand's name
};

Scope scope_of(const CLI::App& app, const std::vector<std::string>& args) {
  Scope scope{&app, app.get_name(), 0};
  for (std::vector<CLI::App*> parsed = app.get_subcommands(); !parsed.empty();
       parsed = parsed.front()->get_subcommands()) {
    scope.app = parsed.front();
    scope.command += " " + scope.app->get_name();
    const auto named =
        std::find(args.begin() + static_cast<long>(scope.next_argument), args.end(), scope.app->get_name());
    if (named != args.end()) scope.next_argument = static_cast<std::size_t>(named - args.begin()) + 1;
  }
  return scope;
}

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + subcommand->get_name();
  }
  return names;
}

// What an option takes, from its help text: "--group" -> "block:X[,Y[,Z]], warp ...".
std::string allowed(const Scope& scope, const std::string& name) {
  const CLI::Option* option = scope.app->get_option_no_throw(name);
  std::string text = option != nullptr ? option->get_description() : "";
  if (text.empty()) return "see " + scope.command + " --help";
  text.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(text.front())));
  return text;
}

// CLI11 names the option before the first ':' ("--group: 1 required TEXT missing").
std::string option_named_in(const std::string& what) { return what.substr(0, what.find(':')); }

std::string missing_subcommand(const Scope& scope, const std::vector<std::string>& args) {
  const std::string expected = "expected one of: " + subcommand_names(*scope.app);
  if (scope.next_argument >= args.size()) return scope.command + ": a subcommand is missing; " + expected;
  return scope.command + ": argument 'subcommand' = " + quoted(args[scope.next_argument]) + " is not allowed; " +
         expected;
}

std::string unexpected(const Scope& scope, const std::string& what, const std::vector<std::string>& args) {
  if (!scope.app->get_subcommands([](const CLI::App*) { return true; }).empty()) {
    return missing_subcommand(scope, args);
  }
  std::string tokens = what.substr(what.find(':') + 1);
  tokens.erase(0, tokens.find_first_not_of(' '));
  return scope.command + ": unexpected argument " + quoted(tokens.substr(0, tokens.find(' '))) +
         "; expected the options of " + scope.command + " (see " + scope.command + " --help)";
}

}  // namespace

std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error,
                                 const std::vector<std::string>& args) {
  const Scope scope = scope_of(app, args);
  const std::string what = error.what();
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    if (what.starts_with("A subcommand")) return missing_subcommand(scope, args);
    const std::string name = what.substr(0, what.find(" is required"));
    return scope.command + ": argument " + quoted(name) + " is missing; expected " + allowed(scope, name);
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    const std::string name = option_named_in(what);
    if (what.find("At Most") != std::string::npos) {
      return scope.command + ": argument " + quoted(name) +
             " is given more than once; expected one value: " + allowed(scope, name);
    }
    return scope.command + ": argument " + quoted(name) + " needs a value; expected " + allowed(scope, name);
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) return unexpected(scope, what, args);
  return scope.command + ": " + what + "; see " + scope.command + " --help";
}

}  // namespace coop::cli
