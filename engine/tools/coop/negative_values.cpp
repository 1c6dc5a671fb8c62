#include "negative_values.hpp"

#include <algorithm>
#include <cctype>

namespace coop::cli {
namespace {

bool looks_negative(const std::string& token) {
  if (token.size() < 2 || token[0] != '-') return false;
  if (std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '.') return true;
  std::string word = token.substr(1, 3);
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  return word == "inf" || word == "nan";
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
  for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (subcommand->get_name() == name) return subcommand;
  }
  return nullptr;
}

// Asks the option registered under `token`: the catalog's flags are registered
// from option_flags(), so a flag takes a value exactly when its kind lets it
// (FlagValue), and a family's new option needs no name listed here.
bool takes_value(const CLI::App& app, const std::string& token) {
  if (!token.starts_with("--") || token.find('=') != std::string::npos) return false;
  const CLI::Option* option = app.get_option_no_throw(token);
  return option != nullptr && option->get_items_expected_max() > 0;
}

}  // namespace

std::vector<std::string> attach_negative_values(const CLI::App& app, std::vector<std::string> args) {
  const CLI::App* scope = &app;
  std::vector<std::string> joined;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (const CLI::App* subcommand = subcommand_named(*scope, args[i])) scope = subcommand;
    if (takes_value(*scope, args[i]) && i + 1 < args.size() && looks_negative(args[i + 1])) {
      joined.push_back(args[i] + "=" + args[i + 1]);
      ++i;
    } else {
      joined.push_back(args[i]);
    }
  }
  return joined;
}

}  // namespace coop::cli
