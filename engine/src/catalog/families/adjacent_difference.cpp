// Block adjacent differences: cub::BlockAdjacentDifference. Each item of the blocked tile
// combined with its left (direction "left") or right neighbour as difference_op(item,
// neighbour), by default item - neighbour, into a fresh payload. The tile's first item (left)
// or last item (right) has no neighbour in the tile: it takes tile_predecessor_item /
// tile_successor_item where given, and is copied unchanged otherwise. A partial tile
// (valid_items) copies the items from valid_items on, and on the right its last valid item too.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};

OptionSpec direction_option() {
  OptionSpec option{.name = "direction", .type = OptionType::Choice, .allow_runtime = false};
  option.choices = {"left", "right"};
  option.default_choice = "left";
  return option;
}

// CUB's partial-tile overload on the right takes no successor: the last valid item is copied.
std::vector<MethodRule> direction_rules() {
  return {
      {.when = {{"direction", "left"}, {"valid_items", kOmittedOption}},
       .method = "SubtractLeft",
       .allows = {"tile_predecessor_item"}},
      {.when = {{"direction", "left"}},
       .method = "SubtractLeftPartialTile",
       .needs = {"valid_items"},
       .allows = {"tile_predecessor_item"}},
      {.when = {{"direction", "right"}, {"valid_items", kOmittedOption}},
       .method = "SubtractRight",
       .allows = {"tile_successor_item"}},
      {.when = {{"direction", "right"}}, .method = "SubtractRightPartialTile", .needs = {"valid_items"}},
  };
}

}  // namespace

std::vector<OperationSpec> adjacent_difference() {
  OptionSpec difference_op = operator_option("difference_op");
  difference_op.default_choice = "difference";
  difference_op.needs_associative = false;
  OptionSpec valid_items{.name = "valid_items", .type = OptionType::Count, .range = CountRange::ZeroToTileCapacity};
  OptionSpec predecessor{.name = "tile_predecessor_item", .type = OptionType::PayloadScalar};
  OptionSpec successor{.name = "tile_successor_item", .type = OptionType::PayloadScalar};
  return {{
      .name = "adjacent_difference",
      .family = "adjacent_difference",
      .method = "SubtractLeft",
      .operands = {{"values", OperandRole::PayloadIn}, {"result", OperandRole::PayloadResult}},
      .options = {direction_option(), difference_op, valid_items, predecessor, successor},
      .method_arguments = {"values", "result", "difference_op", "valid_items", "tile_predecessor_item",
                           "tile_successor_item"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockAdjacentDifference",
                 .header = "cub/block/block_adjacent_difference.cuh",
                 .template_args = kBlockTemplate,
                 .needs_scratch = true}},
      .methods = direction_rules(),
      .dtypes = arithmetic_dtypes(),
      .scalar_as_one_item = true,
  }};
}

}  // namespace coop::catalog_families
