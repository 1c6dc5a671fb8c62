// Batched warp reductions: cub::WarpReduceBatched, which CCCL 3.5 brought (an older CCCL is
// refused at compile time, naming it; its lambdas need NVRTC's -default-device). Item b of every
// lane of a warp or logical warp belongs to batch b; the call returns each batch's reduction as a
// fresh payload of ceil(batches / lanes) items per lane: striped (lane r, slot i: batch r + i x
// lanes) or blocked (batch r x ceil(batches / lanes) + i). Slots without a batch are unspecified.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

OptionSpec output_layout_option() {
  OptionSpec option{.name = "output_layout", .type = OptionType::Choice, .allow_runtime = false};
  option.choices = {"striped", "blocked"};
  option.default_choice = "striped";
  return option;
}

}  // namespace

std::vector<OperationSpec> reduce_batched() {
  OperandSpec result{
      "result", OperandRole::PayloadResult, "", {.extent = "BATCHES_PER_LANE", .rule = ExtentRule::BatchesPerLane}};
  return {{
      .name = "reduce_batched",
      .family = "reduce_batched",
      .method = "ReduceToStriped",
      .operands = {{"value", OperandRole::PayloadIn}, result},
      .options = {operator_option("binary_op"), output_layout_option()},
      .method_arguments = {"value", "result", "binary_op"},
      .forms = {{.group = GroupKind::Warp,
                 .cub_class = "::cub::WarpReduceBatched",
                 .header = "cub/warp/warp_reduce_batched.cuh",
                 .template_args = {{"T", TemplateArg::DType},
                                   {"Batches", TemplateArg::ItemsPerThread},
                                   {"LogicalWarpThreads", TemplateArg::LogicalWarpThreads},
                                   {"SyncPhysicalWarp", TemplateArg::Literal, "false"}},
                 .needs_whole_warps = true,
                 .needs_scratch = true,
                 .since_cccl = "3.5",
                 .nvrtc_options = {"-default-device"}}},
      .methods = {{.when = {{"output_layout", "striped"}}, .method = "ReduceToStriped"},
                  {.when = {{"output_layout", "blocked"}}, .method = "ReduceToBlocked"}},
      .dtypes = integer_and_float_dtypes(),
  }};
}

}  // namespace coop::catalog_families
