// One function per primitive family, each defined in its own file beside this one.
#pragma once

#include <vector>

#include "coop/catalog.hpp"

namespace coop::catalog_families {

std::vector<OperationSpec> load_store();
std::vector<OperationSpec> reduce();
std::vector<OperationSpec> scan();

// The compile-time `algorithm` option of a family whose block form has `algorithms`.
inline OptionSpec algorithm_option(const std::vector<AlgorithmSpec>& algorithms, std::string default_choice) {
  OptionSpec option{.name = "algorithm", .type = OptionType::Choice};
  for (const auto& algorithm : algorithms) option.choices.push_back(algorithm.name);
  option.default_choice = std::move(default_choice);
  option.allow_runtime = false;
  return option;
}

// Shared by the families that apply a binary operator to the payload (reduce, scan).

// The operator operand: compile-time, never omitted.
inline OptionSpec operator_option() {
  return {.name = "op", .type = OptionType::Operator, .allow_runtime = false, .required = true};
}

// Every dtype but bool: CUB's arithmetic functors promote a bool to int, so a
// "sum" of bools would silently be an "or". Complex payloads take sums and user
// operators (plan() refuses min and max on them).
inline std::vector<DType> arithmetic_dtypes() {
  std::vector<DType> dtypes;
  for (const DType dtype : all_dtypes()) {
    if (dtype != DType::Bool) dtypes.push_back(dtype);
  }
  return dtypes;
}

}  // namespace coop::catalog_families
