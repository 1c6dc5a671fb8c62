// Block radix sorts: cub::BlockRadixSort. The sorted keys (and values) are fresh payloads
// that start as copies of the inputs, which CUB then sorts in place; the inputs are left as
// they were. `descending` and `blocked_to_striped` pick CUB's member function; the bit range
// is checked against the key's width (at plan time, or by a trap for runtime bits); the
// digit width, the outer scan's memoization and the inner scan are CUB's template options,
// with CUB's defaults. Pairs carry values of their own dtype (ValueT), independent of the keys'.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

std::vector<TemplateSlot> block_template(bool pairs) {
  return {{"KeyT", TemplateArg::DType},
          {"BLOCK_DIM_X", TemplateArg::BlockDimX},
          {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
          value_slot(pairs),
          {"RADIX_BITS", TemplateArg::Option, "radix_bits"},
          {"MEMOIZE_OUTER_SCAN", TemplateArg::Option, "memoize_outer_scan"},
          {"INNER_SCAN_ALGORITHM", TemplateArg::Option, "inner_scan_algorithm"},
          {"SMEM_CONFIG", TemplateArg::Literal, "::cudaSharedMemBankSizeFourByte"},
          {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
          {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
}

std::vector<OptionSpec> options() {
  OptionSpec descending{.name = "descending", .type = OptionType::Bool, .allow_runtime = false};
  OptionSpec blocked_to_striped{.name = "blocked_to_striped", .type = OptionType::Bool, .allow_runtime = false};
  OptionSpec radix_bits{.name = "radix_bits",
                        .type = OptionType::Count,
                        .default_choice = "4",
                        .allow_runtime = false,
                        .range = CountRange::DigitBits};
  OptionSpec memoize{
      .name = "memoize_outer_scan", .type = OptionType::Bool, .default_choice = "true", .allow_runtime = false};
  OptionSpec inner_scan{.name = "inner_scan_algorithm", .type = OptionType::Choice, .allow_runtime = false};
  inner_scan.choices = {"warp_scans", "raking", "raking_memoize"};
  inner_scan.choices_cpp = {"::cub::BLOCK_SCAN_WARP_SCANS", "::cub::BLOCK_SCAN_RAKING",
                            "::cub::BLOCK_SCAN_RAKING_MEMOIZE"};
  inner_scan.default_choice = "warp_scans";
  std::vector<OptionSpec> options = key_bit_range_options();
  options.insert(options.end(), {descending, blocked_to_striped, radix_bits, memoize, inner_scan});
  return options;
}

std::vector<MethodRule> order_rules() {
  return {
      {.when = {{"descending", "false"}, {"blocked_to_striped", "false"}}, .method = "Sort"},
      {.when = {{"descending", "true"}, {"blocked_to_striped", "false"}}, .method = "SortDescending"},
      {.when = {{"descending", "false"}, {"blocked_to_striped", "true"}}, .method = "SortBlockedToStriped"},
      {.when = {{"descending", "true"}, {"blocked_to_striped", "true"}}, .method = "SortDescendingBlockedToStriped"},
  };
}

OperationSpec sort_operation(const std::string& name, bool pairs) {
  OperationSpec operation{
      .name = name,
      .family = "radix_sort",
      .method = "Sort",
      .options = options(),
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockRadixSort",
                 .header = "cub/block/block_radix_sort.cuh",
                 .template_args = block_template(pairs),
                 .needs_scratch = true,
                 .max_tile_items = kMaxRadixTile}},
      .methods = order_rules(),
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  add_sorted_operands(operation, pairs, {"begin_bit", "end_bit"});
  return operation;
}

}  // namespace

std::vector<OperationSpec> radix_sort() {
  return {sort_operation("radix_sort_keys", false), sort_operation("radix_sort_pairs", true)};
}

}  // namespace coop::catalog_families
