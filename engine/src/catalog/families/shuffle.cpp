// Block shuffles: cub::BlockShuffle. `mode` picks the member function: up and down
// shift a ThreadData tile (blocked) by one item, offset and rotate move one value
// per thread `distance` ranks. The result is fresh and starts as a copy of the
// input, so the item CUB leaves unwritten (the vacated end of up/down, or an
// offset past the block) holds the thread's own input rather than garbage.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};

OptionSpec mode_option() {
  OptionSpec option{.name = "mode", .type = OptionType::Choice, .allow_runtime = false};
  option.choices = {"up", "down", "offset", "rotate"};
  option.default_choice = "down";
  return option;
}

std::vector<MethodRule> mode_rules() {
  const std::vector<PayloadKind> items = {PayloadKind::Array};
  const std::vector<PayloadKind> value = {PayloadKind::Scalar};
  return {
      {.when = {{"mode", "up"}},
       .method = "Up",
       .payloads = items,
       .allows = {"block_suffix_output"},
       .fixed = {{"distance", "1"}}},
      {.when = {{"mode", "down"}},
       .method = "Down",
       .payloads = items,
       .allows = {"block_prefix_output"},
       .fixed = {{"distance", "1"}}},
      {.when = {{"mode", "offset"}}, .method = "Offset", .payloads = value},
      // CUB wraps once: distances past the block would read past its scratch; the seed
      // also refuses 0, a rotation that moves nothing.
      {.when = {{"mode", "rotate"}},
       .method = "Rotate",
       .payloads = value,
       .ranges = {{"distance", CountRange::OtherRank}}},
  };
}

}  // namespace

std::vector<OperationSpec> shuffle() {
  // Any int: a source rank outside the block leaves the result as the input.
  OptionSpec distance{.name = "distance", .type = OptionType::Count};
  OptionSpec block_suffix{.name = "block_suffix_output", .type = OptionType::ScalarOutput, .allow_static = false};
  OptionSpec block_prefix{.name = "block_prefix_output", .type = OptionType::ScalarOutput, .allow_static = false};
  return {{
      .name = "shuffle",
      .family = "shuffle",
      .method = "Down",
      .operands = {{"value", OperandRole::PayloadIn}, {"result", OperandRole::PayloadResult, "value"}},
      .options = {mode_option(), distance, block_suffix, block_prefix},
      .method_arguments = {"value", "result", "distance", "block_suffix_output", "block_prefix_output"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockShuffle",
                 .header = "cub/block/block_shuffle.cuh",
                 .template_args = kBlockTemplate,
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array}, {PayloadKind::Scalar}}}},
      .methods = mode_rules(),
      .takes_records = true,  // CUB moves any copyable type: an aligned structured dtype's items whole
  }};
}

}  // namespace coop::catalog_families
