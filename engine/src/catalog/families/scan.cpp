// Block and warp scans: cub::BlockScan and cub::WarpScan (and WarpScan's
// Broadcast), declared as data in the shape of load_store.cpp. A ThreadData
// payload is scanned in place or into `output`; a scalar payload's scanned value
// is the call's result.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"ALGORITHM", TemplateArg::Algorithm},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
const std::vector<TemplateSlot> kWarpTemplate = {{"T", TemplateArg::DType},
                                                 {"LOGICAL_WARP_THREADS", TemplateArg::LogicalWarpThreads}};

// CUB's WarpScan takes one value per lane. Its ThreadData overloads here are
// BlockScan's, composed the same way: reduce the thread's items, scan the partials
// across the warp (exclusively), then scan the items in the thread seeded with
// that prefix. Without an initial value lane 0 has no prefix to apply.
const ClassAdapter kWarpScanItems{
    "::coop_adapt::WarpScanItems",
    {"cub/thread/thread_reduce.cuh", "cub/thread/thread_scan.cuh", "cuda/ptx", "cuda/std/functional"},
    adapters::source("warp_scan_items")};

std::vector<AlgorithmSpec> block_algorithms() {
  const std::string prefix = "::cub::BLOCK_SCAN_";
  return {
      {"raking", prefix + "RAKING"},
      {"raking_memoize", prefix + "RAKING_MEMOIZE"},
      {"warp_scans", prefix + "WARP_SCANS"},
  };
}

OptionSpec output_option() {
  return {.name = "output", .type = OptionType::PayloadOutput, .allow_static = false, .target = "items"};
}

OptionSpec block_aggregate_option() {
  return {.name = "block_aggregate", .type = OptionType::ScalarOutput, .allow_static = false};
}

OptionSpec initial_value_option() { return {.name = "initial_value", .type = OptionType::PayloadScalar}; }

// CUB's block prefix callback: called by the first warp with the block's
// aggregate, its (lane 0) return value seeds the scan.
OptionSpec prefix_op_option() {
  return {.name = "prefix_op",
          .type = OptionType::PrefixCallback,
          .allow_runtime = false,
          .excludes = {"block_aggregate", "initial_value"}};
}

OptionSpec src_lane_option() {
  return {.name = "src_lane", .type = OptionType::Count, .range = CountRange::GroupRank, .required = true};
}

// `scalar_lacks`: the options BlockScan's one-value-per-thread overloads lack.
std::vector<GroupForm> forms(std::vector<std::string> scalar_lacks = {}) {
  return {
      {.group = GroupKind::Block,
       .cub_class = "::cub::BlockScan",
       .header = "cub/block/block_scan.cuh",
       .template_args = kBlockTemplate,
       .algorithms = block_algorithms(),
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array}, {PayloadKind::Scalar, std::move(scalar_lacks)}}},
      {.group = GroupKind::Warp,
       .cub_class = "::cub::WarpScan",
       .header = "cub/warp/warp_scan.cuh",
       .template_args = kWarpTemplate,
       .needs_whole_warps = true,
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array, {}, &kWarpScanItems}, {PayloadKind::Scalar}},
       .lacks = {"prefix_op"}},
  };
}

// Broadcast exists for warps only, one value per lane.
std::vector<GroupForm> warp_scalar_form() {
  return {{.group = GroupKind::Warp,
           .cub_class = "::cub::WarpScan",
           .header = "cub/warp/warp_scan.cuh",
           .template_args = kWarpTemplate,
           .needs_whole_warps = true,
           .needs_scratch = true,
           .payloads = {{PayloadKind::Scalar}}}};
}

OperationSpec sum_operation(const std::string& name, const std::string& method) {
  return {
      .name = name,
      .family = "scan",
      .method = method,
      .operands = {{"items", OperandRole::PayloadInOut}},
      .options = {algorithm_option(block_algorithms(), "raking"), output_option(), block_aggregate_option(),
                  prefix_op_option()},
      .method_arguments = {"items", "output", "block_aggregate", "prefix_op"},
      .forms = forms(),
      .dtypes = arithmetic_dtypes(),
  };
}

OperationSpec scan_operation(const std::string& name, const std::string& method,
                             std::vector<std::string> block_scalar_lacks) {
  return {
      .name = name,
      .family = "scan",
      .method = method,
      .operands = {{"items", OperandRole::PayloadInOut}},
      .options = {operator_option(), algorithm_option(block_algorithms(), "raking"), output_option(),
                  initial_value_option(), block_aggregate_option(), prefix_op_option()},
      .method_arguments = {"items", "output", "initial_value", "op", "block_aggregate", "prefix_op"},
      .forms = forms(std::move(block_scalar_lacks)),
      .dtypes = arithmetic_dtypes(),
  };
}

}  // namespace

std::vector<OperationSpec> scan() {
  OperationSpec broadcast{
      .name = "broadcast",
      .family = "scan",
      .method = "Broadcast",
      .operands = {{"value", OperandRole::PayloadIn}},
      .options = {src_lane_option()},
      .method_arguments = {"value", "src_lane"},
      .forms = warp_scalar_form(),
      .returns_value = true,  // moves bits only: every dtype
  };
  return {
      sum_operation("inclusive_sum", "InclusiveSum"),
      sum_operation("exclusive_sum", "ExclusiveSum"),
      // BlockScan::InclusiveScan takes an initial value only with ThreadData.
      scan_operation("inclusive_scan", "InclusiveScan", {"initial_value"}),
      scan_operation("exclusive_scan", "ExclusiveScan", {}),
      broadcast,
  };
}

}  // namespace coop::catalog_families
