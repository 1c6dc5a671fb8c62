// The reduce/scan coverage matrix: every CallFacts the compile-matrix and scratch-oracle tests
// plan for the reduce and scan families, grouped the way they are compiled (one NVRTC call per
// bundle). The axes are written out here rather than read from the catalog, so a catalog that
// loses an algorithm, an operator or an overload fails the tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

struct MatrixPayload {
  PayloadKind kind = PayloadKind::Array;
  int items = 1;
};

inline const std::vector<MatrixPayload> kReduceScanPayloads = {
    {PayloadKind::Scalar, 1}, {PayloadKind::Array, 1}, {PayloadKind::Array, 4}};
inline const std::vector<std::string> kBlockReduceAlgorithms = {"warp_reductions", "raking", "raking_commutative_only"};
inline const std::vector<std::string> kBlockScanAlgorithms = {"raking", "raking_memoize", "warp_scans"};
inline const std::vector<std::string> kReductions = {"reduce", "sum"};
inline const std::vector<std::string> kScans = {"scan", "inclusive_sum", "exclusive_sum", "inclusive_scan",
                                                "exclusive_scan"};
// The representative dtypes get every shape; the others one bundle of fewer shapes.
inline const std::vector<DType> kReduceScanDtypes = {DType::Int32, DType::Int64, DType::Float32, DType::Float64,
                                                     DType::Float16};
inline const std::vector<DType> kReduceScanOtherDtypes = {DType::Int8,   DType::Int16,  DType::UInt8,   DType::UInt16,
                                                          DType::UInt32, DType::UInt64, DType::BFloat16};
inline const std::vector<Dim3> kReduceScanBlocks = {{128, 1, 1}, {32, 4, 1}, {96, 1, 1}};
inline const std::vector<int> kReduceScanWarpWidths = {8, 16, 32};
inline constexpr Dim3 kReduceScanWarpBlock = {128, 1, 1};

// The operator option an operation takes ("" for none): the reductions' binary_op, the scans' scan_op.
inline std::string operator_option_of(const std::string& operation) {
  if (operation == "reduce" || operation == "segmented_reduce") return "binary_op";
  if (operation == "scan" || operation == "inclusive_scan" || operation == "exclusive_scan") return "scan_op";
  return "";
}

// An exclusive scan with an operator other than the sum needs a seed.
inline bool needs_a_seed(const std::string& operation, const Bindings& options) {
  const auto op = options.find("scan_op");
  const auto mode = options.find("mode");
  const bool exclusive = operation == "exclusive_scan" ||
                         (operation == "scan" && (mode == options.end() || mode->second.value == "exclusive"));
  return exclusive && op != options.end() && op->second.value != "sum" && options.count("initial_value") == 0 &&
         options.count("prefix_op") == 0;
}

inline std::vector<std::string> builtin_operators_for(DType dtype) {
  std::vector<std::string> names = {"sum", "min", "max"};
  if (info(dtype).is_integer) names.insert(names.end(), {"bit_and", "bit_or", "bit_xor"});
  return names;
}

// The user operator a bundle's calls name: one symbol per dtype, as the front end compiles them.
inline std::string user_operator_for(DType dtype) { return "user:coop_matrix_op_" + std::string(info(dtype).name); }

// The block prefix callback a bundle's scans name, one symbol per dtype.
inline std::string prefix_callback_for(DType dtype) {
  return "user:coop_matrix_prefix_" + std::string(info(dtype).name);
}

inline CallFacts reduce_scan_call(const std::string& operation, Group group, DType dtype, MatrixPayload payload,
                                  const std::string& algorithm, Bindings options = {}) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = group;
  facts.dtype = dtype;
  facts.items_per_thread = payload.items;
  facts.payload = payload.kind;
  facts.options = std::move(options);
  if (!algorithm.empty()) facts.options["algorithm"] = OptionBinding::fixed(algorithm);
  facts.where = "reduce_scan_matrix";
  return facts;
}

// Builds one bundle's calls; operators rotate through the dtype's built-ins so that every
// operator meets every operation.
class ReduceScanBundleBuilder {
 public:
  ReduceScanBundleBuilder(std::string name, DType dtype) : bundle_{std::move(name), {}}, dtype_(dtype) {}

  void add(const std::string& operation, Group group, MatrixPayload payload, const std::string& algorithm,
           Bindings options = {}) {
    const std::string op = operator_option_of(operation);
    if (!op.empty() && options.count(op) == 0) options[op] = OptionBinding::fixed(next_operator());
    if (needs_a_seed(operation, options)) options["initial_value"] = OptionBinding::runtime();
    bundle_.calls.push_back(reduce_scan_call(operation, group, dtype_, payload, algorithm, std::move(options)));
  }

  // Every operation of both families on `group`: `algorithms_of` gives the algorithms to cover
  // for a family ({""} on a warp), `payloads` the shapes.
  template <typename Algorithms>
  void add_every_operation(Group group, const std::vector<MatrixPayload>& payloads, Algorithms algorithms_of) {
    for (const auto& operation : kReductions) {
      for (const auto& algorithm : algorithms_of(kBlockReduceAlgorithms)) {
        for (const auto payload : payloads) add(operation, group, payload, algorithm);
      }
    }
    for (const auto& operation : kScans) {
      for (const auto& algorithm : algorithms_of(kBlockScanAlgorithms)) {
        for (const auto payload : payloads) add(operation, group, payload, algorithm);
      }
    }
  }

  // The warp-only operations of both families.
  void add_warp_only(Group warp) {
    const OptionBinding runtime = OptionBinding::runtime();
    for (const char* flags : {"heads", "tails"}) {
      add("segmented_reduce", warp, {PayloadKind::Scalar, 1}, "", {{"flags", OptionBinding::fixed(flags)}});
    }
    add("broadcast", warp, {PayloadKind::Scalar, 1}, "", {{"src_lane", runtime}});
    add("broadcast", warp, {PayloadKind::Scalar, 1}, "",
        {{"src_lane", OptionBinding::fixed(std::to_string(warp.width - 1))}});
  }

  // Every optional argument of both families, each STATIC and RUNTIME where allowed, on one
  // group and algorithm. `block` drops what BlockScan's scalar overloads lack.
  void add_option_variants(Group group, const std::string& reduce_algorithm, const std::string& scan_algorithm) {
    const bool block = group.kind == GroupKind::Block;
    const OptionBinding runtime = OptionBinding::runtime();
    const OptionBinding user = OptionBinding::fixed(user_operator_for(dtype_));
    const MatrixPayload scalar{PayloadKind::Scalar, 1}, one{PayloadKind::Array, 1}, four{PayloadKind::Array, 4};
    const std::string last_valid = std::to_string(group.threads() - 1);
    for (const auto& operation : kReductions) {
      add(operation, group, scalar, reduce_algorithm, {{"valid_items", runtime}});
      add(operation, group, scalar, reduce_algorithm, {{"valid_items", OptionBinding::fixed(last_valid)}});
      add(operation, group, four, reduce_algorithm, {{"broadcast", OptionBinding::fixed("false")}});  // CUB's own
    }
    add("reduce", group, four, reduce_algorithm, {{"binary_op", user}});
    add("reduce", group, scalar, reduce_algorithm, {{"binary_op", user}, {"valid_items", runtime}});
    for (const char* operation : {"inclusive_sum", "exclusive_sum"}) {
      add(operation, group, four, scan_algorithm, {{"aggregate_output", runtime}});
      add(operation, group, one, scan_algorithm, {{"aggregate_output", runtime}});
      add(operation, group, scalar, scan_algorithm, {{"aggregate_output", runtime}});
    }
    const OptionBinding seed = OptionBinding::fixed("3");
    add("exclusive_scan", group, scalar, scan_algorithm,
        {{"initial_value", runtime}, {"scan_op", OptionBinding::fixed("sum")}});  // the sum seeded
    add("exclusive_scan", group, scalar, scan_algorithm, {{"initial_value", seed}, {"aggregate_output", runtime}});
    add("exclusive_scan", group, four, scan_algorithm, {{"initial_value", seed}});
    add("exclusive_scan", group, four, scan_algorithm, {{"initial_value", runtime}, {"aggregate_output", runtime}});
    add("exclusive_scan", group, four, scan_algorithm, {{"scan_op", OptionBinding::fixed("sum")}});  // ExclusiveSum
    add("exclusive_scan", group, four, scan_algorithm,
        {{"aggregate_output", runtime}, {"scan_op", user}, {"initial_value", runtime}});
    add("inclusive_scan", group, one, scan_algorithm, {{"aggregate_output", runtime}});
    add("inclusive_scan", group, four, scan_algorithm, {{"aggregate_output", runtime}});
    add("inclusive_scan", group, scalar, scan_algorithm, {{"aggregate_output", runtime}, {"scan_op", user}});
    // The mode as an option: each mode with the sum and with another operator.
    for (const char* mode : {"exclusive", "inclusive"}) {
      add("scan", group, four, scan_algorithm, {{"mode", OptionBinding::fixed(mode)}});
      add("scan", group, scalar, scan_algorithm,
          {{"mode", OptionBinding::fixed(mode)}, {"scan_op", OptionBinding::fixed("max")}});
    }
    if (block) {  // CUB's block prefix callback: every scan, both payload shapes
      const OptionBinding prefix = OptionBinding::fixed(prefix_callback_for(dtype_));
      for (const auto& operation : kScans) {
        add(operation, group, four, scan_algorithm, {{"prefix_op", prefix}});
        add(operation, group, scalar, scan_algorithm, {{"prefix_op", prefix}});
      }
      add("exclusive_scan", group, four, scan_algorithm, {{"prefix_op", prefix}, {"scan_op", user}});
    }
    if (!block) {
      add("segmented_reduce", group, scalar, "", {{"binary_op", user}, {"flags", OptionBinding::fixed("tails")}});
      // The seed's valid_items on one value per lane, with and without the aggregate it narrows.
      const OptionBinding last = OptionBinding::fixed(last_valid);
      add("inclusive_sum", group, scalar, "", {{"valid_items", runtime}});
      add("exclusive_sum", group, scalar, "", {{"valid_items", last}, {"aggregate_output", runtime}});
      add("inclusive_scan", group, scalar, "", {{"valid_items", runtime}, {"aggregate_output", runtime}});
      add("exclusive_scan", group, scalar, "",
          {{"valid_items", runtime}, {"aggregate_output", runtime}, {"initial_value", seed}});
      add("exclusive_scan", group, scalar, "", {{"valid_items", last}});
    }
  }

  MatrixBundle take() { return std::move(bundle_); }

 private:
  std::string next_operator() {
    const auto names = builtin_operators_for(dtype_);
    return names[next_++ % names.size()];
  }

  MatrixBundle bundle_;
  DType dtype_;
  std::size_t next_ = 0;
};

inline std::vector<std::string> every_algorithm(const std::vector<std::string>& algorithms) { return algorithms; }
inline std::vector<std::string> no_algorithm(const std::vector<std::string>&) { return {""}; }
inline std::vector<std::string> first_algorithm(const std::vector<std::string>& algorithms) {
  return {algorithms.front()};
}

// One bundle per representative dtype: every operation x algorithm x block shape x payload
// (scalar, 1 item, 4 items), every operation x logical-warp width x payload, the warp-only
// operations, then every optional argument at block (32,4,1) for every algorithm and in
// 16-lane warps. A last bundle holds the other arithmetic dtypes at block 128 and 32-lane warps.
// 2527 calls in 6 bundles take ~9 s of NVRTC (precompiled header) on a 2-core machine.
inline std::vector<MatrixBundle> reduce_scan_matrix() {
  std::vector<MatrixBundle> bundles;
  for (const DType dtype : kReduceScanDtypes) {
    ReduceScanBundleBuilder builder(std::string(info(dtype).name), dtype);
    for (const Dim3 shape : kReduceScanBlocks) {
      builder.add_every_operation(Group::this_block(shape), kReduceScanPayloads, every_algorithm);
    }
    for (const int width : kReduceScanWarpWidths) {
      const Group warp = Group::this_warp(kReduceScanWarpBlock, width);
      builder.add_every_operation(warp, kReduceScanPayloads, no_algorithm);
      builder.add_warp_only(warp);
    }
    for (std::size_t i = 0; i < kBlockReduceAlgorithms.size(); ++i) {
      builder.add_option_variants(Group::this_block({32, 4, 1}), kBlockReduceAlgorithms[i], kBlockScanAlgorithms[i]);
    }
    builder.add_option_variants(Group::this_warp(kReduceScanWarpBlock, 16), "", "");
    bundles.push_back(builder.take());
  }
  MatrixBundle others{"other dtypes", {}};
  for (const DType dtype : kReduceScanOtherDtypes) {
    ReduceScanBundleBuilder builder(std::string(info(dtype).name), dtype);
    const Group block = Group::this_block({128, 1, 1});
    const Group warp = Group::this_warp({64, 1, 1}, 32);
    const std::vector<MatrixPayload> payloads = {{PayloadKind::Scalar, 1}, {PayloadKind::Array, 4}};
    builder.add_every_operation(block, payloads, first_algorithm);
    builder.add_every_operation(warp, payloads, no_algorithm);
    builder.add_warp_only(warp);
    for (const auto& op : builtin_operators_for(dtype)) {
      builder.add("reduce", block, {PayloadKind::Array, 2}, "raking", {{"binary_op", OptionBinding::fixed(op)}});
      builder.add("exclusive_scan", warp, {PayloadKind::Array, 2}, "", {{"scan_op", OptionBinding::fixed(op)}});
    }
    builder.add("inclusive_scan", warp, {PayloadKind::Array, 2}, "",
                {{"scan_op", OptionBinding::fixed(user_operator_for(dtype))}});
    auto calls = builder.take().calls;
    others.calls.insert(others.calls.end(), calls.begin(), calls.end());
  }
  // Complex payloads: sums and user operators on arrays (complex values cross by pointer only),
  // every block algorithm and warp width, a prefix callback, and the data movement around them.
  for (const DType dtype : {DType::Complex64, DType::Complex128}) {
    const std::vector<MatrixPayload> arrays = {{PayloadKind::Array, 1}, {PayloadKind::Array, 4}};
    const OptionBinding sum = OptionBinding::fixed("sum"), user = OptionBinding::fixed(user_operator_for(dtype));
    ReduceScanBundleBuilder builder(std::string(info(dtype).name), dtype);
    const auto add_sums = [&](Group group, const std::vector<std::string>& reduce_algorithms,
                              const std::vector<std::string>& scan_algorithms) {
      for (const auto payload : arrays) {
        for (const auto& algorithm : reduce_algorithms) {
          builder.add("sum", group, payload, algorithm);
          builder.add("reduce", group, payload, algorithm, {{"binary_op", payload.items == 1 ? sum : user}});
        }
        for (const auto& algorithm : scan_algorithms) {
          builder.add("inclusive_sum", group, payload, algorithm);
          builder.add("exclusive_sum", group, payload, algorithm, {{"aggregate_output", OptionBinding::runtime()}});
          builder.add("inclusive_scan", group, payload, algorithm, {{"scan_op", user}});
          builder.add("exclusive_scan", group, payload, algorithm, {{"scan_op", sum}});
        }
      }
    };
    add_sums(Group::this_block({96, 1, 1}), kBlockReduceAlgorithms, kBlockScanAlgorithms);
    for (const int width : kReduceScanWarpWidths) add_sums(Group::this_warp(kReduceScanWarpBlock, width), {""}, {""});
    builder.add("exclusive_sum", Group::this_block({128, 1, 1}), {PayloadKind::Array, 4}, "raking",
                {{"prefix_op", OptionBinding::fixed(prefix_callback_for(dtype))}});
    auto calls = builder.take().calls;
    for (const char* algorithm : {"direct", "vectorize", "transpose", "warp_transpose"}) {
      for (const char* operation : {"load", "store"}) {
        calls.push_back(reduce_scan_call(operation, Group::this_block({128, 1, 1}), dtype, {PayloadKind::Array, 4},
                                         algorithm, {{"valid_items", OptionBinding::runtime()}}));
      }
    }
    others.calls.insert(others.calls.end(), calls.begin(), calls.end());
  }
  // Groups of warps and clusters (composed adapters, reductions only): reduce and sum of every
  // payload shape, on groups of one and two warps and on clusters of two blocks (every block
  // algorithm) and of four 2-D blocks.
  for (const DType dtype : {DType::Int32, DType::Float32, DType::Float64}) {
    ReduceScanBundleBuilder builder(std::string(info(dtype).name), dtype);
    const auto add_reductions = [&](Group group, const std::vector<std::string>& algorithms) {
      for (const auto& operation : kReductions) {
        for (const auto& algorithm : algorithms) {
          for (const auto payload : kReduceScanPayloads) builder.add(operation, group, payload, algorithm);
        }
      }
    };
    add_reductions(Group::warps_of({256, 1, 1}, 2), {""});
    add_reductions(Group::warps_of({128, 1, 1}, 1), {""});
    add_reductions(Group::cluster_of({128, 1, 1}, 2), kBlockReduceAlgorithms);
    add_reductions(Group::cluster_of({32, 4, 1}, 4), {""});
    auto calls = builder.take().calls;
    others.calls.insert(others.calls.end(), calls.begin(), calls.end());
  }
  // Broadcast moves bits only, so it takes bool too.
  others.calls.push_back(reduce_scan_call("broadcast", Group::this_warp({64, 1, 1}, 8), DType::Bool,
                                          {PayloadKind::Scalar, 1}, "", {{"src_lane", OptionBinding::runtime()}}));
  bundles.push_back(std::move(others));
  return bundles;
}

}  // namespace coop::testing
