// What a family file under families/ includes: each defines one function,
// `std::vector<OperationSpec> coop::catalog_families::<its file's stem>()`, and the
// build lists them all (engine/cmake/families.cmake). Helpers several families share.
#pragma once

#include <string>
#include <vector>

#include "adapters/adapters.hpp"
#include "coop/catalog.hpp"

namespace coop::catalog_families {

struct Family {
  const char* name;  // the file's stem
  std::vector<OperationSpec> (*operations)();
};

const std::vector<Family>& all();  // generated: every family file, by name

// The compile-time `algorithm` option of a family whose block form has `algorithms`.
inline OptionSpec algorithm_option(const std::vector<AlgorithmSpec>& algorithms, std::string default_choice) {
  OptionSpec option{.name = "algorithm", .type = OptionType::Choice};
  for (const auto& algorithm : algorithms) option.choices.push_back(algorithm.name);
  option.default_choice = std::move(default_choice);
  option.allow_runtime = false;
  return option;
}

// Shared by the families that apply a binary operator to the payload (reduce, scan).

// The operator (binary_op, scan_op): compile-time; omitted, it is the sum.
inline OptionSpec operator_option(std::string name) {
  return {.name = std::move(name), .type = OptionType::Operator, .default_choice = "sum", .allow_runtime = false};
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

// Every integer width, signed or not (a histogram's samples, run lengths).
inline std::vector<DType> integer_dtypes() {
  std::vector<DType> dtypes;
  for (const DType dtype : all_dtypes()) {
    if (info(dtype).is_integer) dtypes.push_back(dtype);
  }
  return dtypes;
}

// Integers and floats: neither bool nor complex (what a batched warp reduction moves by word shuffles).
inline std::vector<DType> integer_and_float_dtypes() {
  std::vector<DType> dtypes;
  for (const DType dtype : all_dtypes()) {
    if (info(dtype).is_integer || info(dtype).is_floating) dtypes.push_back(dtype);
  }
  return dtypes;
}

// Shared by the radix families (radix_sort, radix_rank, topk).

// Integer keys of every width and the floats CUB's radix traits order (bit-twiddled:
// negative values reversed below positive ones, -0.0 equal to +0.0, NaNs at the ends).
inline std::vector<DType> radix_key_dtypes() { return integer_and_float_dtypes(); }

// The bits of the key a radix sort or selection compares: [begin_bit, end_bit), static or
// runtime (as CUB takes them), checked against the key's width; omitted, the whole key.
inline std::vector<OptionSpec> key_bit_range_options() {
  OptionSpec begin_bit{.name = "begin_bit", .type = OptionType::Count, .range = CountRange::KeyBitBegin};
  begin_bit.less_than = "end_bit";
  begin_bit.omitted_value = "0";
  OptionSpec end_bit{.name = "end_bit", .type = OptionType::Count, .range = CountRange::KeyBitEnd};
  return {begin_bit, end_bit};
}

// CUB counts a radix digit's keys in 16 bits: a tile holds at most 65535 items.
inline constexpr long long kMaxRadixTile = 65535;

// Shared by the families that sort keys, alone or with values (radix_sort, merge_sort, topk).

// The ValueT template slot of CUB's sorting classes: the values' own dtype, or cub::NullType for keys alone.
inline TemplateSlot value_slot(bool pairs) {
  return pairs ? TemplateSlot{"ValueT", TemplateArg::NamedDType, "ValueT"}
               : TemplateSlot{"ValueT", TemplateArg::Literal, "::cub::NullType"};
}

// The keys and, for pairs, values of their own dtype (ValueT), and the fresh results they are
// sorted into, each starting as a copy of its input (CUB sorts in place); CUB's arguments are
// the results, then `trailing`.
inline void add_sorted_operands(OperationSpec& operation, bool pairs, const std::vector<std::string>& trailing) {
  operation.operands = {{"keys", OperandRole::PayloadIn}};
  if (pairs) operation.operands.push_back({"values", OperandRole::PayloadIn, "", {.element = "ValueT"}});
  operation.operands.push_back({"keys_result", OperandRole::PayloadResult, "keys"});
  if (pairs)
    operation.operands.push_back({"values_result", OperandRole::PayloadResult, "values", {.element = "ValueT"}});
  operation.method_arguments = {"keys_result"};
  if (pairs) operation.method_arguments.push_back("values_result");
  operation.method_arguments.insert(operation.method_arguments.end(), trailing.begin(), trailing.end());
}

}  // namespace coop::catalog_families
