// The load/store coverage matrix: every CallFacts the compile-matrix and scratch-oracle tests
// plan, grouped the way they are compiled (one NVRTC call per dtype). The axes are written out
// here rather than read from the catalog, so a catalog that loses an algorithm fails the tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

inline const std::vector<std::string> kBlockAlgorithms = {"direct",    "striped",        "vectorize",
                                                          "transpose", "warp_transpose", "warp_transpose_timesliced"};
inline const std::vector<std::string> kWarpAlgorithms = {"direct", "striped", "vectorize", "transpose"};
inline const std::vector<DType> kMatrixDtypes = {DType::Int8,    DType::Int32,   DType::Int64,
                                                 DType::Float16, DType::Float32, DType::Float64};
inline const std::vector<Dim3> kMatrixBlocks = {{128, 1, 1}, {32, 4, 1}, {96, 1, 1}};
inline const std::vector<int> kMatrixItems = {1, 2, 4, 7};
inline const std::vector<int> kMatrixWarpWidths = {8, 16, 32};
inline constexpr Dim3 kWarpHostBlock = {128, 1, 1};

inline CallFacts matrix_call(const std::string& operation, Group group, DType dtype, int items,
                             const std::string& algorithm, Bindings options = {}) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = group;
  facts.dtype = dtype;
  facts.items_per_thread = items;
  facts.options = std::move(options);
  facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  facts.where = "load_store_matrix";
  return facts;
}

// Partial-tile and offset variants that, across both operations, reach every overload CUB has:
// Load(src, items, valid), Load(src, items, valid, oob), Store(dst, items, valid), with each
// argument both STATIC and RUNTIME where the catalog allows it. `tile` is the tile capacity.
inline std::vector<Bindings> partial_variants(const std::string& operation, int tile) {
  const OptionBinding runtime = OptionBinding::runtime();
  const OptionBinding static_valid = OptionBinding::fixed(std::to_string(tile - 1));
  if (operation == "load") {
    return {{{"valid_items", runtime}},
            {{"valid_items", runtime}, {"oob_default", runtime}, {"offset", runtime}},
            {{"valid_items", static_valid}, {"oob_default", OptionBinding::fixed("-1")}},
            {{"offset", runtime}}};
  }
  return {{{"valid_items", runtime}}, {{"valid_items", static_valid}, {"offset", runtime}}, {{"offset", runtime}}};
}

// One bundle per dtype (310 calls): full tiles for every block shape (2 operations x 6
// algorithms x 4 item counts each) and every logical-warp width (2 x 4 x 4 each), then the
// partial-tile variants of every algorithm of both group kinds at 7 items, in block (32,4,1)
// and in 16-lane warps. One compile per dtype measured fastest on a 2-core machine: 6 bundles
// take ~8 s, 42 bundles (dtype x shape) ~18 s, one bundle of all 1860 calls ~11 s, and one
// compile per call ~0.16 s each (~5 min).
inline std::vector<MatrixBundle> load_store_matrix() {
  std::vector<MatrixBundle> bundles;
  for (const DType dtype : kMatrixDtypes) {
    MatrixBundle bundle{std::string(info(dtype).name), {}};
    auto add = [&](const std::string& operation, Group group, int items, const std::string& algorithm,
                   Bindings options = {}) {
      bundle.calls.push_back(matrix_call(operation, group, dtype, items, algorithm, std::move(options)));
    };
    for (const char* operation : {"load", "store"}) {
      for (const Dim3 shape : kMatrixBlocks) {
        const Group block = Group::this_block(shape);
        for (const auto& algorithm : kBlockAlgorithms) {
          for (const int items : kMatrixItems) add(operation, block, items, algorithm);
        }
      }
      for (const int width : kMatrixWarpWidths) {
        const Group warp = Group::this_warp(kWarpHostBlock, width);
        for (const auto& algorithm : kWarpAlgorithms) {
          for (const int items : kMatrixItems) add(operation, warp, items, algorithm);
        }
      }
      const int items = 7;
      const Group block = Group::this_block({32, 4, 1});
      for (const auto& algorithm : kBlockAlgorithms) {
        for (auto& options : partial_variants(operation, items * block.threads())) {
          add(operation, block, items, algorithm, std::move(options));
        }
      }
      const Group warp = Group::this_warp(kWarpHostBlock, 16);
      for (const auto& algorithm : kWarpAlgorithms) {
        for (auto& options : partial_variants(operation, items * warp.threads())) {
          add(operation, warp, items, algorithm, std::move(options));
        }
      }
    }
    bundles.push_back(std::move(bundle));
  }
  return bundles;
}

}  // namespace coop::testing
