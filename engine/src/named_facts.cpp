#include "named_facts.hpp"

#include <algorithm>
#include <vector>

#include "coop/abi.hpp"
#include "coop/error.hpp"
#include "coop/plan.hpp"

namespace coop {
namespace {

enum class FactKind { DType, Extent };

// One place an operation reads a named fact: a parameter's type expression or a template slot.
struct NamedUse {
  std::string name;                 // "ValueT", "bins"
  FactKind kind;                    // a CallFacts::dtypes or a CallFacts::extents name
  std::string reader;               // the parameter or template slot, as messages name it
  std::string shown;                // "the array passed as values (ValueT[N])", for messages
  bool needed;                      // read by this call: its form's slots, every operand, the options it binds
  std::vector<DType> allowed = {};  // a dtype's: the ones its reader takes; empty: any
};

void add_array_uses(std::vector<NamedUse>& uses, const std::string& parameter, const ArrayType& array,
                    const std::string& element, bool needed) {
  const std::string shown = "the array passed as " + parameter + " (" +
                            (array.element.empty() ? element : array.element) + "[" +
                            (array.extent.empty() ? "N" : array.extent) + "])";
  if (!array.element.empty()) uses.push_back({array.element, FactKind::DType, parameter, shown, needed, array.dtypes});
  if (!array.extent.empty()) uses.push_back({array.extent, FactKind::Extent, parameter, shown, needed});
}

std::vector<NamedUse> named_uses(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form) {
  std::vector<NamedUse> uses;
  for (const auto& operand : operation.operands) add_array_uses(uses, operand.name, operand.array, "T", true);
  for (const auto& option : operation.options) {
    const Binding binding = facts.option(option.name).binding;
    add_array_uses(uses, option.name, option.array, std::string(info(option.element).name),
                   binding != Binding::Omitted);
    if (!option.index_dtype.empty()) {
      uses.push_back({option.index_dtype, FactKind::DType, option.name, "the runtime value passed as " + option.name,
                      binding == Binding::Runtime, index_dtypes()});
    }
  }
  for (const auto& candidate : operation.forms) {
    for (const auto& slot : candidate.template_args) {
      const std::string shown = "the template slot " + slot.name + " of " + candidate.cub_class;
      const bool needed = &candidate == &form;
      if (slot.from == TemplateArg::NamedDType) uses.push_back({slot.fact, FactKind::DType, slot.name, shown, needed});
      if (slot.from == TemplateArg::NamedExtent)
        uses.push_back({slot.fact, FactKind::Extent, slot.name, shown, needed});
    }
  }
  return uses;
}

const char* map_of(FactKind kind) { return kind == FactKind::DType ? "dtypes" : "extents"; }

std::string names_of(const std::vector<NamedUse>& uses, FactKind kind) {
  std::vector<std::string> names;
  for (const auto& use : uses) {
    if (use.kind == kind && std::find(names.begin(), names.end(), use.name) == names.end()) names.push_back(use.name);
  }
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

const NamedUse* first_use(const std::vector<NamedUse>& uses, FactKind kind, const std::string& name) {
  const auto found =
      std::find_if(uses.begin(), uses.end(), [&](const NamedUse& use) { return use.kind == kind && use.name == name; });
  return found == uses.end() ? nullptr : &*found;
}

// A named fact the call does not read would be silently ignored, yet give one provider two keys.
void reject_unread(const CallFacts& facts, const OperationSpec& operation, const std::vector<NamedUse>& uses,
                   FactKind kind, const std::string& name) {
  std::string readers;
  for (const auto& use : uses) {
    if (use.kind != kind || use.name != name) continue;
    if (use.needed) return;
    readers += (readers.empty() ? "" : ", ") + use.reader;
  }
  const std::string known = names_of(uses, kind);
  const std::string what = kind == FactKind::DType ? "named dtype" : "named extent";
  std::string expected = known.empty() ? "no " + what + ": " + operation.name + " has none"
                                       : "one of the " + what + "s of " + operation.name + ": " + known;
  if (!readers.empty()) expected = "no " + name + ": what reads it (" + readers + ") is not part of this call";
  reject(ErrorKind::InvalidArgument, facts.call_name(), map_of(kind), "'" + name + "'", expected);
}

// The dtypes a use takes: its own list, else every dtype.
std::string dtype_list(const std::vector<DType>& allowed) {
  if (allowed.empty()) return dtype_names();
  std::string names;
  for (const DType dtype : allowed) names += (names.empty() ? "" : ", ") + std::string(info(dtype).name);
  return names;
}

void reject_missing(const CallFacts& facts, const NamedUse& use) {
  const bool dtype = use.kind == FactKind::DType;
  const bool given = dtype ? facts.dtypes.contains(use.name) : facts.extents.contains(use.name);
  if (!use.needed || given) return;
  reject(ErrorKind::InvalidArgument, facts.call_name(), use.reader,
         std::string("no ") + (dtype ? "dtype" : "extent") + " given for " + use.name,
         std::string(map_of(use.kind)) + "['" + use.name + "']: the " + (dtype ? "dtype" : "length") + " of " +
             use.shown +
             (dtype ? ", one of: " + dtype_list(use.allowed) : ", 1 to " + std::to_string(kMaxNamedExtent)));
}

void check_extent(const CallFacts& facts, const NamedUse& use, int extent) {
  if (extent >= 1 && extent <= kMaxNamedExtent) return;
  reject(ErrorKind::InvalidArgument, facts.call_name(), use.reader, std::to_string(extent),
         "extents['" + use.name + "'] from 1 to " + std::to_string(kMaxNamedExtent) + ": the length of " + use.shown);
}

void check_dtype(const CallFacts& facts, const NamedUse& use, DType dtype) {
  if (!use.needed || use.allowed.empty()) return;
  if (std::find(use.allowed.begin(), use.allowed.end(), dtype) != use.allowed.end()) return;
  reject(ErrorKind::InvalidArgument, facts.call_name(), use.reader, std::string(info(dtype).name),
         "one of " + dtype_list(use.allowed) + ": the dtype of " + use.shown);
}

}  // namespace

void check_named_facts(const CallFacts& facts, const OperationSpec& operation, const GroupForm& form) {
  const std::vector<NamedUse> uses = named_uses(facts, operation, form);
  for (const auto& [name, dtype] : facts.dtypes) {
    reject_unread(facts, operation, uses, FactKind::DType, name);
    for (const auto& use : uses) {
      if (use.kind == FactKind::DType && use.name == name) check_dtype(facts, use, dtype);
    }
  }
  for (const auto& [name, extent] : facts.extents) {
    reject_unread(facts, operation, uses, FactKind::Extent, name);
    check_extent(facts, *first_use(uses, FactKind::Extent, name), extent);
  }
  for (const auto& use : uses) reject_missing(facts, use);
}

}  // namespace coop
