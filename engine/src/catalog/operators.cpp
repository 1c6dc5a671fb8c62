// The built-in operators a reduction, scan or adjacent difference names, and the built-in predicates a sort
// or a discontinuity names: each is a functor CUB or libcu++ already defines, so a
// provider using one needs no other link input.
#include "coop/catalog.hpp"

namespace coop {

const std::vector<OperatorSpec>& builtin_operators() {
  static const std::vector<OperatorSpec> operators = {
      {"sum", "::cuda::std::plus<>", "cuda/std/functional", false, false, {"+", "add", "plus"}},
      {"mul", "::cuda::std::multiplies<>", "cuda/std/functional", false, false, {"*", "multiply", "multiplies"}},
      {"min", "::cuda::minimum<>", "cuda/functional", false, true, {"minimum"}},
      {"max", "::cuda::maximum<>", "cuda/functional", false, true, {"maximum"}},
      {"bit_and", "::cuda::std::bit_and<>", "cuda/std/functional", true, false, {"&"}},
      {"bit_or", "::cuda::std::bit_or<>", "cuda/std/functional", true, false, {"|"}},
      {"bit_xor", "::cuda::std::bit_xor<>", "cuda/std/functional", true, false, {"^"}},
      // An adjacent difference's default, op(current, neighbour) = current - neighbour.
      {"difference", "::cuda::std::minus<>", "cuda/std/functional", false, false, {"-", "minus", "subtract"}, false},
  };
  return operators;
}

const OperatorSpec* find_operator(std::string_view name) {
  for (const auto& candidate : builtin_operators()) {
    if (candidate.name == name) return &candidate;
    for (const auto& alias : candidate.aliases) {
      if (alias == name) return &candidate;
    }
  }
  return nullptr;
}

std::string operator_names(bool associative_only) {
  std::string names;
  for (const auto& candidate : builtin_operators()) {
    if (candidate.associative || !associative_only) names += (names.empty() ? "" : ", ") + candidate.name;
  }
  return names;
}

const std::vector<PredicateSpec>& builtin_predicates() {
  static const std::vector<PredicateSpec> predicates = {
      {"less", "::cuda::std::less<>", "greater", true, {"<", "lt"}},
      {"greater", "::cuda::std::greater<>", "less", true, {">", "gt"}},
      {"less_equal", "::cuda::std::less_equal<>", "greater_equal", true, {"<=", "le"}},
      {"greater_equal", "::cuda::std::greater_equal<>", "less_equal", true, {">=", "ge"}},
      {"not_equal", "::cuda::std::not_equal_to<>", "not_equal", false, {"!=", "ne"}},
      {"equal", "::cuda::std::equal_to<>", "equal", false, {"==", "eq"}},
  };
  return predicates;
}

const PredicateSpec* find_predicate(std::string_view name) {
  for (const auto& candidate : builtin_predicates()) {
    if (candidate.name == name) return &candidate;
    for (const auto& alias : candidate.aliases) {
      if (alias == name) return &candidate;
    }
  }
  return nullptr;
}

std::string predicate_names() {
  std::string names;
  for (const auto& candidate : builtin_predicates()) names += (names.empty() ? "" : ", ") + candidate.name;
  return names;
}

}  // namespace coop
