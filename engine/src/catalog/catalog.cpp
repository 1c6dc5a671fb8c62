#include "coop/catalog.hpp"

#include "catalog/family.hpp"

namespace coop {

const std::vector<OperationSpec>& catalog() {
  static const std::vector<OperationSpec> operations = [] {
    std::vector<OperationSpec> all;
    for (const auto& family : catalog_families::all()) {
      for (auto& operation : family.operations()) all.push_back(std::move(operation));
    }
    return all;
  }();
  return operations;
}

const OperationSpec* find_operation(std::string_view name) {
  for (const auto& operation : catalog()) {
    if (operation.name == name) return &operation;
  }
  return nullptr;
}

std::string operation_names() {
  std::string names;
  for (const auto& operation : catalog()) names += (names.empty() ? "" : ", ") + operation.name;
  return names;
}

const GroupForm* OperationSpec::form(GroupKind kind) const {
  for (const auto& candidate : forms) {
    if (candidate.group == kind) return &candidate;
  }
  return nullptr;
}

const PayloadShape* GroupForm::payload(PayloadKind kind) const {
  for (const auto& candidate : payloads) {
    if (candidate.kind == kind) return &candidate;
  }
  return nullptr;
}

const OptionSpec* OperationSpec::option(std::string_view option_name) const {
  for (const auto& candidate : options) {
    if (candidate.name == option_name) return &candidate;
  }
  return nullptr;
}

const AlgorithmSpec* find_algorithm(const GroupForm& form, std::string_view name) {
  for (const auto& algorithm : form.algorithms) {
    if (algorithm.name == name) return &algorithm;
  }
  return nullptr;
}

DType element_dtype(const CallFacts& facts, const OperandSpec& operand) {
  if (operand.array.fixed) return *operand.array.fixed;
  return operand.array.element.empty() ? facts.dtype : facts.dtypes.at(operand.array.element);
}

DType element_dtype(const CallFacts& facts, const OptionSpec& option) {
  if (option.array.fixed) return *option.array.fixed;
  if (!option.array.element.empty()) return facts.dtypes.at(option.array.element);
  return option.type == OptionType::DestinationArray ? facts.dtype : option.element;
}

int array_extent(const CallFacts& facts, const ArrayType& array) {
  return array.extent.empty() ? facts.items_per_thread : facts.extents.at(array.extent);
}

std::string algorithm_names(const GroupForm& form) {
  std::string names;
  for (const auto& algorithm : form.algorithms) names += (names.empty() ? "" : ", ") + algorithm.name;
  return names;
}

}  // namespace coop
