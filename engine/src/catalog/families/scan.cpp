// Block and warp scans: cub::BlockScan and cub::WarpScan (and WarpScan's
// Broadcast), declared as data in the shape of load_store.cpp. The scanned items
// are a fresh payload (the input is left as it was); for a scalar payload, the
// call's result. `scan` takes the mode as an option; the four named scans fix it.
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

// The seed's valid_items on warps: CUB's WarpScan has none; this adds overloads taking it last.
const ClassAdapter kWarpScanPartial{"::coop_adapt::WarpScanPartial", {}, adapters::source("warp_scan_partial")};

std::vector<AlgorithmSpec> block_algorithms() {
  const std::string prefix = "::cub::BLOCK_SCAN_";
  return {
      {"raking", prefix + "RAKING"},
      {"raking_memoize", prefix + "RAKING_MEMOIZE"},
      {"warp_scans", prefix + "WARP_SCANS"},
  };
}

// The group's aggregate (without initial_value), written to a one-item array in every thread.
OptionSpec aggregate_output_option() {
  return {.name = "aggregate_output", .type = OptionType::ScalarOutput, .allow_static = false};
}

OptionSpec initial_value_option() { return {.name = "initial_value", .type = OptionType::PayloadScalar}; }

// CUB's block prefix callback: called by the first warp with the block's
// aggregate, its (lane 0) return value seeds the scan.
OptionSpec prefix_op_option() {
  return {.name = "prefix_op",
          .type = OptionType::PrefixCallback,
          .allow_runtime = false,
          .excludes = {"aggregate_output", "initial_value"},
          .aliases = {"block_prefix_callback_op"}};
}

// Warps, one value per lane: the first valid_items lanes take part, at least one (results in the
// others are unspecified; the aggregate covers the valid lanes only).
OptionSpec valid_items_option() {
  return {.name = "valid_items", .type = OptionType::Count, .range = CountRange::OneToTileCapacity};
}

OptionSpec mode_option() {
  return {.name = "mode",
          .type = OptionType::Choice,
          .choices = {"exclusive", "inclusive"},
          .default_choice = "exclusive",
          .allow_runtime = false};
}

OptionSpec src_lane_option() {
  return {.name = "src_lane", .type = OptionType::Count, .range = CountRange::GroupRank, .required = true};
}

std::vector<GroupForm> forms() {
  return {
      {.group = GroupKind::Block,
       .cub_class = "::cub::BlockScan",
       .header = "cub/block/block_scan.cuh",
       .template_args = kBlockTemplate,
       .algorithms = block_algorithms(),
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array}, {PayloadKind::Scalar}},
       .lacks = {"valid_items"}},
      {.group = GroupKind::Warp,
       .cub_class = "::cub::WarpScan",
       .header = "cub/warp/warp_scan.cuh",
       .template_args = kWarpTemplate,
       .needs_whole_warps = true,
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array, {"valid_items"}, &kWarpScanItems},
                    {PayloadKind::Scalar, {}, &kWarpScanPartial}},
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

using Values = std::vector<std::pair<std::string, std::string>>;

// A scan whose mode is fixed ("exclusive", "inclusive") or, with `mode` empty, the
// `mode` option's. The sum (scan_op omitted or "sum") calls CUB's *Sum, which needs
// no seed; any other exclusive scan needs one: initial_value, or the block prefix a
// prefix_op returns.
OperationSpec scan_operation(const std::string& name, const std::string& mode, bool sums_only) {
  const bool chosen_mode = mode.empty();
  const bool exclusive = mode != "inclusive";
  const bool inclusive = mode != "exclusive";
  OperationSpec operation{
      .name = name,
      .family = "scan",
      .method =
          exclusive ? (sums_only ? "ExclusiveSum" : "ExclusiveScan") : (sums_only ? "InclusiveSum" : "InclusiveScan"),
      .operands = {{"value", OperandRole::PayloadIn}, {"result", OperandRole::PayloadResult}},
      .method_arguments = {"value", "result", "initial_value", "scan_op", "aggregate_output", "prefix_op",
                           "valid_items"},
      .forms = forms(),
      .dtypes = arithmetic_dtypes(),
      .takes_records = !sums_only,  // with a Python scan_op: the selective scan's pairs
  };
  if (chosen_mode) operation.options.push_back(mode_option());
  if (!sums_only) operation.options.push_back(operator_option("scan_op"));
  if (!sums_only && exclusive) operation.options.push_back(initial_value_option());
  operation.options.push_back(algorithm_option(block_algorithms(), "raking"));
  operation.options.push_back(prefix_op_option());
  operation.options.push_back(aggregate_output_option());
  operation.options.push_back(valid_items_option());
  std::erase_if(operation.method_arguments, [&](const std::string& name) {
    return name != "value" && name != "result" && operation.option(name) == nullptr;
  });
  if (sums_only) return operation;

  auto when = [&](Values values, const char* this_mode) {
    if (chosen_mode) values.insert(values.begin(), {"mode", this_mode});
    return values;
  };
  if (exclusive) {
    operation.methods.push_back({.when = when({{"scan_op", "sum"}, {"initial_value", kOmittedOption}}, "exclusive"),
                                 .method = "ExclusiveSum",
                                 .fixed = {{"scan_op", "sum"}}});
    operation.methods.push_back({.when = when({}, "exclusive"),
                                 .method = "ExclusiveScan",
                                 .allows = {"initial_value"},
                                 .needs_one_of = {"initial_value", "prefix_op"}});
  }
  if (inclusive) {
    operation.methods.push_back(
        {.when = when({{"scan_op", "sum"}}, "inclusive"), .method = "InclusiveSum", .fixed = {{"scan_op", "sum"}}});
    operation.methods.push_back({.when = when({}, "inclusive"), .method = "InclusiveScan"});
  }
  return operation;
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
      scan_operation("scan", "", false),
      scan_operation("inclusive_sum", "inclusive", true),
      scan_operation("exclusive_sum", "exclusive", true),
      scan_operation("inclusive_scan", "inclusive", false),
      scan_operation("exclusive_scan", "exclusive", false),
      broadcast,
  };
}

}  // namespace coop::catalog_families
