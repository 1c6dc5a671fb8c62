// Block discontinuities: cub::BlockDiscontinuity through an adapter that gives its overloads one
// argument order (see block_discontinuity_flags.cuh). An item's head flag is flag_op(previous,
// item) and its tail flag flag_op(item, next), by default previous != item, as fresh int32
// payloads (1 or 0): `mode` picks heads, tails, or both (returned as (heads, tails)). The tile's
// first head and last tail compare with tile_predecessor_item / tile_successor_item where given,
// and are 1 otherwise.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockDiscontinuityFlags{
    "::coop_adapt::BlockDiscontinuityFlags", {}, adapters::source("block_discontinuity_flags")};

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};

OptionSpec mode_option() {
  OptionSpec option{.name = "mode", .type = OptionType::Choice, .allow_runtime = false};
  option.choices = {"heads", "tails", "heads_and_tails"};
  option.default_choice = "heads";
  return option;
}

// Heads take only a predecessor, tails only a successor, both either or both.
std::vector<MethodRule> mode_rules() {
  const std::string predecessor = "tile_predecessor_item", successor = "tile_successor_item";
  return {
      {.when = {{"mode", "heads"}}, .method = "FlagHeads", .allows = {predecessor}},
      {.when = {{"mode", "tails"}}, .method = "FlagTails", .allows = {successor}},
      {.when = {{"mode", "heads_and_tails"}, {predecessor, kOmittedOption}, {successor, kOmittedOption}},
       .method = "FlagHeadsAndTails"},
      {.when = {{"mode", "heads_and_tails"}, {successor, kOmittedOption}},
       .method = "FlagHeadsAndTailsWithPredecessor",
       .needs = {predecessor}},
      {.when = {{"mode", "heads_and_tails"}, {predecessor, kOmittedOption}},
       .method = "FlagHeadsAndTailsWithSuccessor",
       .needs = {successor}},
      {.when = {{"mode", "heads_and_tails"}}, .method = "FlagHeadsAndTailsWithBoth", .needs = {predecessor, successor}},
  };
}

}  // namespace

std::vector<OperationSpec> discontinuity() {
  OptionSpec flag_op{
      .name = "flag_op", .type = OptionType::Predicate, .default_choice = "not_equal", .allow_runtime = false};
  OptionSpec predecessor{.name = "tile_predecessor_item", .type = OptionType::PayloadScalar};
  OptionSpec successor{.name = "tile_successor_item", .type = OptionType::PayloadScalar};
  OperandSpec heads{"heads", OperandRole::PayloadResult, "", {.fixed = DType::Int32}};
  heads.returned_when = {{"mode", "heads"}, {"mode", "heads_and_tails"}};
  OperandSpec tails{"tails", OperandRole::PayloadResult, "", {.fixed = DType::Int32}};
  tails.returned_when = {{"mode", "tails"}, {"mode", "heads_and_tails"}};
  return {{
      .name = "discontinuity",
      .family = "discontinuity",
      .method = "FlagHeads",
      .operands = {{"values", OperandRole::PayloadIn}, heads, tails},
      .options = {mode_option(), flag_op, predecessor, successor},
      .method_arguments = {"values", "heads", "tails", "flag_op", "tile_predecessor_item", "tile_successor_item"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockDiscontinuity",
                 .header = "cub/block/block_discontinuity.cuh",
                 .template_args = kBlockTemplate,
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kBlockDiscontinuityFlags}}}},
      .methods = mode_rules(),
      .scalar_as_one_item = true,
  }};
}

}  // namespace coop::catalog_families
