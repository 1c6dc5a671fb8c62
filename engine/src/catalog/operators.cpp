// The built-in operators a reduction, scan or adjacent difference names, and the built-in predicates a sort
// or a discontinuity names: each is a functor CUB or libcu++ already defines, so a
// provider using one needs no other link input. The aliases include the spellings of the
// Python objects a kernel may pass (np.maximum, operator.add), so the coop tool takes
// what a kernel writes.
#include "coop/catalog.hpp"

namespace coop {

const std::vector<OperatorSpec>& builtin_operators() {
  static const std::vector<OperatorSpec> operators = {
      {"sum",
       "::cuda::std::plus<>",
       "cuda/std/functional",
       false,
       false,
       {"+", "add", "plus", "operator.add", "np.add", "numpy.add"}},
      {"mul",
       "::cuda::std::multiplies<>",
       "cuda/std/functional",
       false,
       false,
       {"*", "multiply", "multiplies", "operator.mul", "np.multiply", "numpy.multiply"}},
      {"min", "::cuda::minimum<>", "cuda/functional", false, true, {"minimum", "np.minimum", "numpy.minimum"}},
      {"max", "::cuda::maximum<>", "cuda/functional", false, true, {"maximum", "np.maximum", "numpy.maximum"}},
      {"bit_and",
       "::cuda::std::bit_and<>",
       "cuda/std/functional",
       true,
       false,
       {"&", "operator.and_", "np.bitwise_and", "numpy.bitwise_and"}},
      {"bit_or",
       "::cuda::std::bit_or<>",
       "cuda/std/functional",
       true,
       false,
       {"|", "operator.or_", "np.bitwise_or", "numpy.bitwise_or"}},
      {"bit_xor",
       "::cuda::std::bit_xor<>",
       "cuda/std/functional",
       true,
       false,
       {"^", "operator.xor", "np.bitwise_xor", "numpy.bitwise_xor"}},
      // An adjacent difference's default, op(current, neighbour) = current - neighbour.
      {"difference",
       "::cuda::std::minus<>",
       "cuda/std/functional",
       false,
       false,
       {"-", "minus", "subtract", "operator.sub", "np.subtract", "numpy.subtract"},
       false},
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
      {"less", "::cuda::std::less<>", "greater", true, {"<", "lt", "operator.lt", "np.less", "numpy.less"}},
      {"greater", "::cuda::std::greater<>", "less", true, {">", "gt", "operator.gt", "np.greater", "numpy.greater"}},
      {"less_equal",
       "::cuda::std::less_equal<>",
       "greater_equal",
       true,
       {"<=", "le", "operator.le", "np.less_equal", "numpy.less_equal"}},
      {"greater_equal",
       "::cuda::std::greater_equal<>",
       "less_equal",
       true,
       {">=", "ge", "operator.ge", "np.greater_equal", "numpy.greater_equal"}},
      {"not_equal",
       "::cuda::std::not_equal_to<>",
       "not_equal",
       false,
       {"!=", "ne", "operator.ne", "np.not_equal", "numpy.not_equal"}},
      {"equal", "::cuda::std::equal_to<>", "equal", false, {"==", "eq", "operator.eq", "np.equal", "numpy.equal"}},
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
