// The sorting coverage matrix: every CallFacts the compile-matrix and scratch-oracle tests plan
// for cub::BlockRadixSort, the radix rank adapter (BlockRadixRank, BlockRadixRankMatch),
// cub::BlockMergeSort, cub::WarpMergeSort and the block top-k adapter, grouped the way they are
// compiled (one NVRTC call per bundle). The axes are written out here rather than read from the
// catalog, so a catalog that loses an order, a layout or an overload fails the tests.
#pragma once

#include <string>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

// Every key dtype the radix families take; the representative ones get every value dtype and shape.
inline const std::vector<DType> kRadixKeyDtypes = {DType::Int8,    DType::Int16,    DType::Int32,   DType::Int64,
                                                   DType::UInt8,   DType::UInt16,   DType::UInt32,  DType::UInt64,
                                                   DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
inline const std::vector<DType> kRadixRepresentativeKeys = {DType::UInt32, DType::Float32};
inline const std::vector<Dim3> kSortBlocks = {{128, 1, 1}, {32, 4, 1}, {16, 4, 2}};
inline const std::vector<int> kSortItems = {1, 4, 7};
inline const std::vector<int> kMergeWarpWidths = {1, 8, 32};
inline constexpr Dim3 kSortWarpBlock = {64, 1, 1};

inline CallFacts sort_call(const std::string& operation, Group group, DType keys, int items, Bindings options,
                           std::optional<DType> values = std::nullopt) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = group;
  facts.dtype = keys;
  facts.items_per_thread = items;
  facts.options = std::move(options);
  if (values) facts.dtypes["ValueT"] = *values;
  facts.where = "sort_matrix";
  return facts;
}

// descending x blocked_to_striped: the four member functions of BlockRadixSort.
inline std::vector<Bindings> radix_orders() {
  std::vector<Bindings> orders;
  for (const char* descending : {"false", "true"}) {
    for (const char* striped : {"false", "true"}) {
      orders.push_back(
          {{"descending", OptionBinding::fixed(descending)}, {"blocked_to_striped", OptionBinding::fixed(striped)}});
    }
  }
  return orders;
}

// Radix sorts: every key dtype in each order, keys alone and with int32 values (8 calls each);
// the representative keys with every value dtype, every shape and item count with runtime
// bits, static partial bits, and CUB's template options.
inline MatrixBundle radix_sort_bundle() {
  MatrixBundle bundle{"radix_sort", {}};
  const Group block = Group::this_block({128, 1, 1});
  for (const DType keys : kRadixKeyDtypes) {
    for (const Bindings& order : radix_orders()) {
      bundle.calls.push_back(sort_call("radix_sort_keys", block, keys, 4, order));
      bundle.calls.push_back(sort_call("radix_sort_pairs", block, keys, 4, order, DType::Int32));
    }
  }
  const OptionBinding runtime = OptionBinding::runtime();
  for (const DType keys : kRadixRepresentativeKeys) {
    for (const DType values : all_dtypes()) {
      if (values != DType::Int32) bundle.calls.push_back(sort_call("radix_sort_pairs", block, keys, 4, {}, values));
    }
    for (const Dim3& shape : kSortBlocks) {
      for (const int items : kSortItems) {
        bundle.calls.push_back(sort_call("radix_sort_keys", Group::this_block(shape), keys, items,
                                         {{"begin_bit", runtime}, {"end_bit", runtime}}));
      }
    }
    bundle.calls.push_back(
        sort_call("radix_sort_pairs", block, keys, 4,
                  {{"begin_bit", OptionBinding::fixed("3")}, {"end_bit", OptionBinding::fixed("11")}}, DType::Float64));
    bundle.calls.push_back(sort_call("radix_sort_keys", block, keys, 4,
                                     {{"radix_bits", OptionBinding::fixed("8")},
                                      {"memoize_outer_scan", OptionBinding::fixed("false")},
                                      {"inner_scan_algorithm", OptionBinding::fixed("raking")}}));
    bundle.calls.push_back(sort_call(
        "radix_sort_keys", block, keys, 4,
        {{"radix_bits", OptionBinding::fixed("1")}, {"inner_scan_algorithm", OptionBinding::fixed("raking_memoize")}}));
  }
  return bundle;
}

// Radix ranks: three key dtypes x three algorithms x both directions, at 4 and 8 bits, each once
// with the digit prefix; and the shapes.
inline MatrixBundle radix_rank_bundle() {
  MatrixBundle bundle{"radix_rank", {}};
  const OptionBinding runtime = OptionBinding::runtime();
  for (const DType keys : {DType::Int32, DType::UInt64, DType::Float32}) {
    for (const char* algorithm : {"memoize", "basic", "match"}) {
      for (const char* descending : {"false", "true"}) {
        for (const int bits : {4, 8}) {
          const Bindings options = {{"algorithm", OptionBinding::fixed(algorithm)},
                                    {"descending", OptionBinding::fixed(descending)},
                                    {"begin_bit", OptionBinding::fixed("3")},
                                    {"radix_bits", OptionBinding::fixed(std::to_string(bits))}};
          bundle.calls.push_back(sort_call("radix_rank_keys", Group::this_block({128, 1, 1}), keys, 4, options));
          Bindings with_prefix = options;
          with_prefix["exclusive_digit_prefix"] = runtime;
          CallFacts facts = sort_call("radix_rank_keys", Group::this_block({128, 1, 1}), keys, 4, with_prefix);
          facts.extents["digits_per_thread"] = bits == 8 ? 2 : 1;  // max(1, ceil(2^bits / 128))
          bundle.calls.push_back(facts);
        }
      }
    }
  }
  for (const Dim3& shape : kSortBlocks) {
    for (const int items : kSortItems) {
      bundle.calls.push_back(sort_call("radix_rank_keys", Group::this_block(shape), DType::UInt32, items,
                                       {{"end_bit", OptionBinding::fixed("5")}}));
    }
  }
  return bundle;
}

// Merge sorts: every dtype but complex (ordered by the built-in "less"), keys and pairs, in a
// block and in each logical-warp width; partial tiles, descending and a user predicate.
inline MatrixBundle merge_sort_bundle() {
  MatrixBundle bundle{"merge_sort", {}};
  const OptionBinding runtime = OptionBinding::runtime();
  for (const DType keys : all_dtypes()) {
    if (info(keys).is_complex) continue;
    bundle.calls.push_back(sort_call("merge_sort_keys", Group::this_block({128, 1, 1}), keys, 4, {}));
    bundle.calls.push_back(sort_call("merge_sort_pairs", Group::this_warp(kSortWarpBlock), keys, 3,
                                     {{"descending", OptionBinding::fixed("true")}}, DType::Float64));
  }
  const std::vector<Bindings> variants = {
      {},
      {{"valid_items", runtime}, {"oob_default", runtime}},
      {{"valid_items", OptionBinding::fixed("1")}, {"oob_default", OptionBinding::fixed("-1")}},
      {{"compare_op", OptionBinding::fixed("user:coop_matrix_less")}, {"descending", OptionBinding::fixed("true")}},
      {{"compare_op", OptionBinding::fixed("greater_equal")}},
  };
  for (const Bindings& options : variants) {
    for (const Dim3& shape : {Dim3{128, 1, 1}, Dim3{32, 4, 1}, Dim3{8, 4, 2}}) {
      bundle.calls.push_back(
          sort_call("merge_sort_pairs", Group::this_block(shape), DType::Int32, 3, options, DType::Int16));
    }
    for (const int width : kMergeWarpWidths) {
      for (const int items : {1, 3}) {
        bundle.calls.push_back(
            sort_call("merge_sort_keys", Group::this_warp(kSortWarpBlock, width), DType::Int32, items, options));
      }
    }
  }
  return bundle;
}

// Top-k: the four operations for every key dtype with runtime k and valid_items, and with a
// constant k over the full tile, at each item count.
inline MatrixBundle topk_bundle() {
  MatrixBundle bundle{"topk", {}};
  const OptionBinding runtime = OptionBinding::runtime();
  for (const char* operation : {"topk_min_keys", "topk_max_keys", "topk_min_pairs", "topk_max_pairs"}) {
    const bool pairs = std::string(operation).ends_with("pairs");
    const auto values = pairs ? std::optional<DType>(DType::Int64) : std::nullopt;
    for (const DType keys : kRadixKeyDtypes) {
      bundle.calls.push_back(sort_call(operation, Group::this_block({128, 1, 1}), keys, 4,
                                       {{"k", runtime}, {"valid_items", runtime}}, values));
    }
    for (const int items : kSortItems) {
      bundle.calls.push_back(sort_call(operation, Group::this_block({64, 1, 1}), DType::Float32, items,
                                       {{"k", OptionBinding::fixed("5")}}, values));
    }
  }
  return bundle;
}

inline std::vector<MatrixBundle> sort_matrix() {
  return {radix_sort_bundle(), radix_rank_bundle(), merge_sort_bundle(), topk_bundle()};
}

}  // namespace coop::testing
