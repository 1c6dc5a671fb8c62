// The exchange/shuffle coverage matrix: every CallFacts the compile-matrix and scratch-oracle
// tests plan for cub::BlockExchange, cub::WarpExchange and cub::BlockShuffle, grouped the way
// they are compiled (one NVRTC call per bundle). The axes are written out here rather than read
// from the catalog, so a catalog that loses a mode or an overload fails the tests.
#pragma once

#include <string>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

struct ExchangeMode {
  const char* name;
  bool warp;  // cub::WarpExchange has it too
  Bindings arrays;
};

inline std::vector<ExchangeMode> exchange_modes() {
  const OptionBinding runtime = OptionBinding::runtime();
  return {
      {"striped_to_blocked", true, {}},
      {"blocked_to_striped", true, {}},
      {"warp_striped_to_blocked", false, {}},
      {"blocked_to_warp_striped", false, {}},
      {"scatter_to_blocked", false, {{"ranks", runtime}}},
      {"scatter_to_striped", true, {{"ranks", runtime}}},
      {"scatter_to_striped_guarded", false, {{"ranks", runtime}}},
      {"scatter_to_striped_flagged", false, {{"ranks", runtime}, {"valid_flags", runtime}}},
  };
}

// The representative dtypes get every shape; the others (every remaining dtype: exchange and
// shuffle move bits) one bundle of fewer.
inline const std::vector<DType> kExchangeDtypes = {DType::Int32, DType::Float64, DType::Float16};
inline const std::vector<DType> kExchangeOtherDtypes = {
    DType::Bool,   DType::Int8,   DType::Int16,   DType::Int64,    DType::UInt8,     DType::UInt16,
    DType::UInt32, DType::UInt64, DType::Float32, DType::BFloat16, DType::Complex64, DType::Complex128};
inline const std::vector<Dim3> kExchangeBlocks = {{128, 1, 1}, {32, 4, 1}, {16, 4, 2}, {96, 1, 1}};
inline const std::vector<int> kExchangeItems = {1, 3, 4};
inline const std::vector<int> kExchangeWarpWidths = {8, 16, 32};
inline constexpr Dim3 kExchangeWarpBlock = {128, 1, 1};

inline CallFacts exchange_shuffle_call(const std::string& operation, Group group, DType dtype, PayloadKind payload,
                                       int items, Bindings options) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = group;
  facts.dtype = dtype;
  facts.items_per_thread = items;
  facts.payload = payload;
  facts.options = std::move(options);
  facts.where = "exchange_shuffle_matrix";
  return facts;
}

// Every exchange mode with and without warp time slicing, and every shuffle, on one block.
inline void add_block_calls(std::vector<CallFacts>& calls, Group block, DType dtype, int items) {
  for (const auto& mode : exchange_modes()) {
    for (const bool sliced : {false, true}) {
      Bindings options = mode.arrays;
      options["mode"] = OptionBinding::fixed(mode.name);
      if (sliced) options["warp_time_slicing"] = OptionBinding::fixed("true");
      calls.push_back(exchange_shuffle_call("exchange", block, dtype, PayloadKind::Array, items, options));
      // Flags of bool and of an integer (CUB reads either as a condition), one each way of slicing.
      if (options.contains("valid_flags")) calls.back().dtypes["ValidFlagT"] = sliced ? DType::Int32 : DType::Bool;
    }
  }
  const OptionBinding runtime = OptionBinding::runtime();
  for (const Bindings& options :
       std::vector<Bindings>{{{"mode", OptionBinding::fixed("up")}},
                             {{"mode", OptionBinding::fixed("up")}, {"block_suffix_output", runtime}},
                             {{"mode", OptionBinding::fixed("down")}},
                             {{"mode", OptionBinding::fixed("down")}, {"block_prefix_output", runtime}}}) {
    calls.push_back(exchange_shuffle_call("shuffle", block, dtype, PayloadKind::Array, items, options));
  }
}

// The one-value-per-thread shuffles (not for complex values, which cross by pointer only).
inline void add_scalar_shuffles(std::vector<CallFacts>& calls, Group block, DType dtype) {
  if (info(dtype).is_complex) return;
  const std::string last = std::to_string(block.threads() - 1);
  for (const Bindings& options :
       std::vector<Bindings>{{{"mode", OptionBinding::fixed("offset")}, {"distance", OptionBinding::runtime()}},
                             {{"mode", OptionBinding::fixed("offset")}, {"distance", OptionBinding::fixed("-3")}},
                             {{"mode", OptionBinding::fixed("rotate")}, {"distance", OptionBinding::runtime()}},
                             {{"mode", OptionBinding::fixed("rotate")}, {"distance", OptionBinding::fixed(last)}}}) {
    calls.push_back(exchange_shuffle_call("shuffle", block, dtype, PayloadKind::Scalar, 1, options));
  }
}

inline void add_warp_calls(std::vector<CallFacts>& calls, Group warp, DType dtype, int items) {
  for (const auto& mode : exchange_modes()) {
    if (!mode.warp) continue;
    Bindings options = mode.arrays;
    options["mode"] = OptionBinding::fixed(mode.name);
    calls.push_back(exchange_shuffle_call("exchange", warp, dtype, PayloadKind::Array, items, options));
  }
}

inline std::vector<MatrixBundle> exchange_shuffle_matrix() {
  std::vector<MatrixBundle> bundles;
  for (const DType dtype : kExchangeDtypes) {
    MatrixBundle bundle{"exchange_shuffle_" + std::string(info(dtype).name), {}};
    for (const Dim3& shape : kExchangeBlocks) {
      for (const int items : kExchangeItems) add_block_calls(bundle.calls, Group::this_block(shape), dtype, items);
      add_scalar_shuffles(bundle.calls, Group::this_block(shape), dtype);
    }
    for (const int width : kExchangeWarpWidths) {
      const Group warp = Group::this_warp(kExchangeWarpBlock, width);
      for (const int items : kExchangeItems) add_warp_calls(bundle.calls, warp, dtype, items);
    }
    bundles.push_back(std::move(bundle));
  }
  MatrixBundle others{"exchange_shuffle_other_dtypes", {}};
  for (const DType dtype : kExchangeOtherDtypes) {
    add_block_calls(others.calls, Group::this_block({128, 1, 1}), dtype, 4);
    add_scalar_shuffles(others.calls, Group::this_block({128, 1, 1}), dtype);
    add_warp_calls(others.calls, Group::this_warp(kExchangeWarpBlock), dtype, 4);
  }
  bundles.push_back(std::move(others));
  return bundles;
}

}  // namespace coop::testing
