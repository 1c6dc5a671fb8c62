#include "coop/call_facts.hpp"

namespace coop {

const char* to_string(Binding binding) {
  switch (binding) {
    case Binding::Omitted:
      return "OMITTED";
    case Binding::Static:
      return "STATIC";
    case Binding::Runtime:
      return "RUNTIME";
  }
  return "?";
}

const char* to_string(PayloadKind kind) { return kind == PayloadKind::Array ? "array" : "scalar"; }

OptionBinding CallFacts::option(const std::string& name) const {
  const auto found = options.find(name);
  return found == options.end() ? OptionBinding::omitted() : found->second;
}

std::string CallFacts::call_name() const { return where.empty() ? operation : operation + " (" + where + ")"; }

}  // namespace coop
