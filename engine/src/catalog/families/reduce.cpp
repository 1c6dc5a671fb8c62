// Block and warp reductions: cub::BlockReduce and cub::WarpReduce, groups of warps
// composed from cub::WarpReduce and clusters composed from cub::BlockReduce, declared as data in the shape of
// load_store.cpp. The reduced value is the call's result, in every thread of the
// group (broadcast, the default) or, as CUB documents, in its first thread only
// (broadcast=false).
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
const std::vector<TemplateSlot> kWarpsTemplate = {{"T", TemplateArg::DType},
                                                  {"GROUP_THREADS", TemplateArg::LogicalWarpThreads},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
const std::vector<TemplateSlot> kClusterTemplate = {{"T", TemplateArg::DType},
                                                    {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                    {"CLUSTER_BLOCKS", TemplateArg::ClusterBlocks},
                                                    {"ALGORITHM", TemplateArg::Algorithm},
                                                    {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                    {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};

// CUB's WarpReduce takes one value per lane. A ThreadData payload is reduced in
// the thread first with cub::ThreadReduce, exactly as BlockReduce's own ThreadData
// overloads do, and then across the warp.
const ClassAdapter kWarpReduceItems{"::coop_adapt::WarpReduceItems",
                                    {"cub/thread/thread_reduce.cuh", "cuda/std/functional"},
                                    adapters::source("warp_reduce_items")};

// CUB's BlockReduce takes valid_items for one value per thread only; a ThreadData
// payload's partial tile reduces each thread's valid items first, then the threads
// holding any through CUB's num_valid overload.
const ClassAdapter kBlockReducePartial{"::coop_adapt::BlockReducePartial",
                                       {"cub/util_ptx.cuh", "cuda/std/functional"},
                                       adapters::source("block_reduce_partial")};

// CUB has no class for a group of warps (the seed's this_block().group_by(n)): each warp
// reduces with cub::WarpReduce and the group combines the warps' totals after a named
// barrier of its own, giving every member the result.
const ClassAdapter kWarpsReduce{"::coop_adapt::WarpsReduce",
                                {"cub/thread/thread_reduce.cuh", "cub/util_ptx.cuh", "cuda/std/functional"},
                                adapters::source("warps_reduce")};

// Nor for a thread block cluster (the seed's this_cluster()): each block reduces with
// cub::BlockReduce and every member combines the blocks' totals through distributed
// shared memory after the cluster's barrier.
const ClassAdapter kClusterReduce{
    "::coop_adapt::ClusterReduce", {"cub/util_ptx.cuh", "cuda/std/functional"}, adapters::source("cluster_reduce")};

std::vector<AlgorithmSpec> block_algorithms() {
  const std::string prefix = "::cub::BLOCK_REDUCE_";
  return {
      {"warp_reductions", prefix + "WARP_REDUCTIONS"},
      {"raking", prefix + "RAKING"},
      {"raking_commutative_only", prefix + "RAKING_COMMUTATIVE_ONLY"},
  };
}

// The result in every thread of the group, or (false) in its first thread only, as CUB gives it.
OptionSpec broadcast_option() {
  return {.name = "broadcast", .type = OptionType::Broadcast, .default_choice = "true", .allow_runtime = false};
}

// The first valid_items threads (lanes) contribute their value: at least one, as a reduction
// of none has no value (the seed's bound).
OptionSpec valid_items_option() {
  return {.name = "valid_items", .type = OptionType::Count, .range = CountRange::OneToTileCapacity};
}

OptionSpec flags_option() {
  OptionSpec option{.name = "flags", .type = OptionType::Choice};
  option.choices = {"heads", "tails"};
  option.default_choice = "heads";
  option.allow_runtime = false;
  return option;
}

// CUB has valid_items only where each thread contributes one value; blocks compose it for
// a ThreadData (kBlockReducePartial), warps do not yet.
std::vector<GroupForm> forms() {
  return {
      {.group = GroupKind::Block,
       .cub_class = "::cub::BlockReduce",
       .header = "cub/block/block_reduce.cuh",
       .template_args = kBlockTemplate,
       .algorithms = block_algorithms(),
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array, {}, &kBlockReducePartial}, {PayloadKind::Scalar}}},
      {.group = GroupKind::Warp,
       .cub_class = "::cub::WarpReduce",
       .header = "cub/warp/warp_reduce.cuh",
       .template_args = kWarpTemplate,
       .needs_whole_warps = true,
       .needs_scratch = true,
       .payloads = {{PayloadKind::Array, {"valid_items"}, &kWarpReduceItems}, {PayloadKind::Scalar}}},
      {.group = GroupKind::Warps,
       .cub_class = kWarpsReduce.name,
       .header = "cub/warp/warp_reduce.cuh",
       .template_args = kWarpsTemplate,
       .needs_whole_warps = true,
       .needs_scratch = true,
       .result_in_every_member = true,
       .payloads = {{PayloadKind::Array, {}, &kWarpsReduce}, {PayloadKind::Scalar, {}, &kWarpsReduce}},
       .lacks = {"valid_items"}},
      {.group = GroupKind::Cluster,
       .cub_class = kClusterReduce.name,
       .header = "cub/block/block_reduce.cuh",
       .template_args = kClusterTemplate,
       .algorithms = block_algorithms(),  // the blocks' reduction
       .needs_scratch = true,
       .result_in_every_member = true,
       .payloads = {{PayloadKind::Array, {}, &kClusterReduce}, {PayloadKind::Scalar, {}, &kClusterReduce}},
       .lacks = {"valid_items"}},
  };
}

// Segmented reductions exist for warps only, one value and one flag per lane.
std::vector<GroupForm> warp_scalar_form() {
  return {{.group = GroupKind::Warp,
           .cub_class = "::cub::WarpReduce",
           .header = "cub/warp/warp_reduce.cuh",
           .template_args = kWarpTemplate,
           .needs_whole_warps = true,
           .needs_scratch = true,
           .payloads = {{PayloadKind::Scalar}}}};
}

}  // namespace

std::vector<OperationSpec> reduce() {
  OperationSpec reduce{
      .name = "reduce",
      .family = "reduce",
      .method = "Reduce",
      .operands = {{"value", OperandRole::PayloadIn}},
      .options = {operator_option("binary_op"), broadcast_option(), valid_items_option(),
                  algorithm_option(block_algorithms(), "warp_reductions")},
      .method_arguments = {"value", "binary_op", "valid_items"},
      .forms = forms(),
      .returns_value = true,
      .dtypes = arithmetic_dtypes(),
      .identity_on_one_thread = true,
      .takes_records = true,  // with a Python binary_op: a Welford triple, a (sum, sum of squares) pair
  };
  OperationSpec sum{
      .name = "sum",
      .family = "reduce",
      .method = "Sum",
      .operands = {{"value", OperandRole::PayloadIn}},
      .options = {broadcast_option(), valid_items_option(), algorithm_option(block_algorithms(), "warp_reductions")},
      .method_arguments = {"value", "valid_items"},
      .forms = forms(),
      .returns_value = true,
      .dtypes = arithmetic_dtypes(),
      .identity_on_one_thread = true,
  };
  OperationSpec segmented_reduce{
      .name = "segmented_reduce",
      .family = "reduce",
      .method = "HeadSegmentedReduce",
      .operands = {{"value", OperandRole::PayloadIn}, {"flag", OperandRole::Flag}},
      .options = {operator_option("binary_op"), flags_option()},
      .method_arguments = {"value", "flag", "binary_op"},
      .forms = warp_scalar_form(),
      .methods = {{.when = {{"flags", "heads"}}, .method = "HeadSegmentedReduce"},
                  {.when = {{"flags", "tails"}}, .method = "TailSegmentedReduce"}},
      .returns_value = true,
      .dtypes = arithmetic_dtypes(),
  };
  return {reduce, sum, segmented_reduce};
}

}  // namespace coop::catalog_families
