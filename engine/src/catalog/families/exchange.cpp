// Block and warp exchanges: cub::BlockExchange and cub::WarpExchange. The exchanged
// items are a fresh payload (the input is left as it was); `mode` picks CUB's
// member function, and the scatters take their ranks (and flags) as payload-shaped
// int32 arrays (and arrays of bool or any integer, nonzero meaning valid), checked
// against the tile by the Checked* adapters.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                                  {"WARP_TIME_SLICING", TemplateArg::Option, "warp_time_slicing"},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
const std::vector<TemplateSlot> kWarpTemplate = {{"T", TemplateArg::DType},
                                                 {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                                 {"LOGICAL_WARP_THREADS", TemplateArg::LogicalWarpThreads}};

const ClassAdapter kCheckedBlockExchange{
    "::coop_adapt::CheckedBlockExchange", {}, adapters::source("checked_block_exchange")};
const ClassAdapter kCheckedWarpExchange{
    "::coop_adapt::CheckedWarpExchange", {}, adapters::source("checked_warp_exchange")};

// mode -> CUB member function, the groups that have it and the arrays it reads.
struct Mode {
  const char* name;
  const char* method;
  std::vector<GroupKind> groups;
  std::vector<std::string> needs;
};

const std::vector<Mode> kModes = {
    {"striped_to_blocked", "StripedToBlocked", {}, {}},
    {"blocked_to_striped", "BlockedToStriped", {}, {}},
    {"warp_striped_to_blocked", "WarpStripedToBlocked", {GroupKind::Block}, {}},
    {"blocked_to_warp_striped", "BlockedToWarpStriped", {GroupKind::Block}, {}},
    {"scatter_to_blocked", "ScatterToBlocked", {GroupKind::Block}, {"ranks"}},
    {"scatter_to_striped", "ScatterToStriped", {}, {"ranks"}},
    {"scatter_to_striped_guarded", "ScatterToStripedGuarded", {GroupKind::Block}, {"ranks"}},
    {"scatter_to_striped_flagged", "ScatterToStripedFlagged", {GroupKind::Block}, {"ranks", "valid_flags"}},
};

OptionSpec mode_option() {
  OptionSpec option{.name = "mode", .type = OptionType::Choice, .allow_runtime = false};
  for (const auto& mode : kModes) option.choices.push_back(mode.name);
  option.default_choice = "striped_to_blocked";
  return option;
}

std::vector<MethodRule> mode_rules() {
  std::vector<MethodRule> rules;
  for (const auto& mode : kModes) {
    rules.push_back({.when = {{"mode", mode.name}}, .method = mode.method, .groups = mode.groups, .needs = mode.needs});
  }
  return rules;
}

}  // namespace

std::vector<OperationSpec> exchange() {
  OptionSpec ranks{.name = "ranks", .type = OptionType::PayloadArray, .allow_static = false};
  ranks.element = DType::Int32;
  // CUB reads each flag as a condition: bool or any integer (the seed's tests pass either).
  OptionSpec valid_flags{.name = "valid_flags", .type = OptionType::PayloadArray, .allow_static = false};
  valid_flags.array.element = "ValidFlagT";
  valid_flags.array.dtypes = {DType::Bool};
  for (const DType dtype : all_dtypes()) {
    if (info(dtype).is_integer) valid_flags.array.dtypes.push_back(dtype);
  }
  // CUB's time slicing reuses one warp's worth of scratch for the whole block.
  OptionSpec warp_time_slicing{.name = "warp_time_slicing", .type = OptionType::Bool, .allow_runtime = false};
  return {{
      .name = "exchange",
      .family = "exchange",
      .method = "StripedToBlocked",
      .operands = {{"value", OperandRole::PayloadIn}, {"result", OperandRole::PayloadResult}},
      .options = {mode_option(), ranks, valid_flags, warp_time_slicing},
      .method_arguments = {"value", "result", "ranks", "valid_flags"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockExchange",
                 .header = "cub/block/block_exchange.cuh",
                 .template_args = kBlockTemplate,
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kCheckedBlockExchange}}},
                {.group = GroupKind::Warp,
                 .cub_class = "::cub::WarpExchange",
                 .header = "cub/warp/warp_exchange.cuh",
                 .template_args = kWarpTemplate,
                 .needs_whole_warps = true,
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kCheckedWarpExchange}},
                 .lacks = {"warp_time_slicing"}}},
      .methods = mode_rules(),
      .takes_records = true,  // CUB moves any copyable type: an aligned structured dtype's items whole
  }};
}

}  // namespace coop::catalog_families
