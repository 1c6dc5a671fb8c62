// The neighbours coverage matrix: every CallFacts the compile-matrix and scratch-oracle tests plan
// for cub::BlockAdjacentDifference and cub::BlockDiscontinuity (through its flags adapter),
// grouped the way they are compiled (one NVRTC call per bundle). The axes are written out here
// rather than read from the catalog, so a catalog that loses a direction, a mode or an overload
// fails the tests.
#pragma once

#include <string>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

// Every dtype but bool differs; every dtype flags. The representative ones get every shape.
inline const std::vector<DType> kDifferenceDtypes = {DType::Int8,      DType::Int16,     DType::Int32,   DType::Int64,
                                                     DType::UInt8,     DType::UInt16,    DType::UInt32,  DType::UInt64,
                                                     DType::Float16,   DType::BFloat16,  DType::Float32, DType::Float64,
                                                     DType::Complex64, DType::Complex128};
inline const std::vector<DType> kNeighbourRepresentatives = {DType::Int32, DType::Float32};
inline const std::vector<Dim3> kNeighbourBlocks = {{128, 1, 1}, {32, 4, 1}, {16, 4, 2}};
inline const std::vector<int> kNeighbourItems = {1, 4, 7};

inline CallFacts neighbour_call(const std::string& operation, Dim3 block, DType dtype, int items, Bindings options) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = Group::this_block(block);
  facts.dtype = dtype;
  facts.items_per_thread = items;
  facts.options = std::move(options);
  facts.where = "neighbour_matrix";
  return facts;
}

// SubtractLeft, SubtractLeftPartialTile (with the tile's predecessor), SubtractRight and
// SubtractRightPartialTile for every dtype; per representative dtype each shape and item count
// with a runtime neighbour on either side, a built-in operator other than the difference and a
// static item count.
inline MatrixBundle adjacent_difference_bundle() {
  MatrixBundle bundle{"adjacent_diff", {}};
  const auto left = OptionBinding::fixed("left"), right = OptionBinding::fixed("right");
  const auto runtime = OptionBinding::runtime();
  for (const DType dtype : kDifferenceDtypes) {
    const Dim3 block = kNeighbourBlocks[0];
    bundle.calls.push_back(neighbour_call("adjacent_difference", block, dtype, 4, {{"direction", left}}));
    bundle.calls.push_back(neighbour_call("adjacent_difference", block, dtype, 4, {{"direction", right}}));
    bundle.calls.push_back(neighbour_call("adjacent_difference", block, dtype, 4,
                                          {{"valid_items", runtime}, {"tile_predecessor_item", runtime}}));
    bundle.calls.push_back(
        neighbour_call("adjacent_difference", block, dtype, 4, {{"direction", right}, {"valid_items", runtime}}));
  }
  for (const DType dtype : kNeighbourRepresentatives) {
    for (const Dim3 block : kNeighbourBlocks) {
      for (const int items : kNeighbourItems) {
        bundle.calls.push_back(
            neighbour_call("adjacent_difference", block, dtype, items, {{"tile_predecessor_item", runtime}}));
        bundle.calls.push_back(neighbour_call("adjacent_difference", block, dtype, items,
                                              {{"direction", right}, {"tile_successor_item", runtime}}));
      }
    }
    bundle.calls.push_back(neighbour_call("adjacent_difference", kNeighbourBlocks[0], dtype, 4,
                                          {{"difference_op", OptionBinding::fixed("max")}}));
    bundle.calls.push_back(neighbour_call("adjacent_difference", kNeighbourBlocks[0], dtype, 4,
                                          {{"direction", right}, {"valid_items", OptionBinding::fixed("300")}}));
  }
  return bundle;
}

// Heads, tails and both for every dtype; per representative dtype each shape and item count
// with its tile neighbours, both flags with one neighbour only, and a built-in predicate.
inline MatrixBundle discontinuity_bundle() {
  MatrixBundle bundle{"discontinuity", {}};
  const auto runtime = OptionBinding::runtime();
  const auto heads = OptionBinding::fixed("heads"), tails = OptionBinding::fixed("tails"),
             both = OptionBinding::fixed("heads_and_tails");
  std::vector<DType> dtypes = {DType::Bool};
  dtypes.insert(dtypes.end(), kDifferenceDtypes.begin(), kDifferenceDtypes.end());
  for (const DType dtype : dtypes) {
    for (const auto& mode : {heads, tails, both}) {
      bundle.calls.push_back(neighbour_call("discontinuity", kNeighbourBlocks[0], dtype, 4, {{"mode", mode}}));
    }
  }
  for (const DType dtype : kNeighbourRepresentatives) {
    for (const Dim3 block : kNeighbourBlocks) {
      for (const int items : kNeighbourItems) {
        bundle.calls.push_back(
            neighbour_call("discontinuity", block, dtype, items, {{"tile_predecessor_item", runtime}}));
        bundle.calls.push_back(
            neighbour_call("discontinuity", block, dtype, items, {{"mode", tails}, {"tile_successor_item", runtime}}));
        bundle.calls.push_back(
            neighbour_call("discontinuity", block, dtype, items,
                           {{"mode", both}, {"tile_predecessor_item", runtime}, {"tile_successor_item", runtime}}));
      }
    }
    const Dim3 block = kNeighbourBlocks[0];
    bundle.calls.push_back(
        neighbour_call("discontinuity", block, dtype, 4, {{"mode", both}, {"tile_predecessor_item", runtime}}));
    bundle.calls.push_back(
        neighbour_call("discontinuity", block, dtype, 4, {{"mode", both}, {"tile_successor_item", runtime}}));
    bundle.calls.push_back(
        neighbour_call("discontinuity", block, dtype, 4, {{"flag_op", OptionBinding::fixed("less")}}));
  }
  return bundle;
}

inline std::vector<MatrixBundle> neighbour_matrix() { return {adjacent_difference_bundle(), discontinuity_bundle()}; }

}  // namespace coop::testing
