// Block and warp merge sorts: cub::BlockMergeSort and cub::WarpMergeSort. The sorted keys (and
// values) are fresh payloads that start as copies of the inputs, which CUB sorts in place; the
// inputs are left as they were. `compare_op` is a strict "less" (built in, or a Python function
// linked like an operator), reversed by `descending`. A partial tile sorts its first
// valid_items keys, CUB filling the rest with oob_default; only those first valid_items results
// are defined. CUB's merge path needs a power-of-two group.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

std::vector<TemplateSlot> block_template(bool pairs) {
  return {{"KeyT", TemplateArg::DType},
          {"BLOCK_DIM_X", TemplateArg::BlockDimX},
          {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
          value_slot(pairs),
          {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
          {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
}

std::vector<TemplateSlot> warp_template(bool pairs) {
  return {{"KeyT", TemplateArg::DType},
          {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
          {"LOGICAL_WARP_THREADS", TemplateArg::LogicalWarpThreads},
          value_slot(pairs)};
}

std::vector<OptionSpec> options() {
  OptionSpec compare_op{.name = "compare_op",
                        .type = OptionType::Predicate,
                        .default_choice = "less",
                        .allow_runtime = false,
                        .reversed_by = "descending"};
  OptionSpec descending{.name = "descending", .type = OptionType::Bool, .allow_runtime = false};
  // CUB has no overload taking one without the other.
  OptionSpec valid_items{.name = "valid_items",
                         .type = OptionType::Count,
                         .requires_option = "oob_default",
                         .range = CountRange::ZeroToTileCapacity};
  OptionSpec oob_default{.name = "oob_default", .type = OptionType::PayloadScalar, .requires_option = "valid_items"};
  return {compare_op, descending, valid_items, oob_default};
}

OperationSpec sort_operation(const std::string& name, bool pairs) {
  OperationSpec operation{
      .name = name,
      .family = "merge_sort",
      .method = "Sort",
      .options = options(),
      .forms = {{.group = GroupKind::Block,
                 .cub_class = "::cub::BlockMergeSort",
                 .header = "cub/block/block_merge_sort.cuh",
                 .template_args = block_template(pairs),
                 .needs_scratch = true,
                 .needs_power_of_two_threads = true},
                {.group = GroupKind::Warp,
                 .cub_class = "::cub::WarpMergeSort",
                 .header = "cub/warp/warp_merge_sort.cuh",
                 .template_args = warp_template(pairs),
                 .needs_whole_warps = true,
                 .needs_scratch = true,
                 .needs_power_of_two_threads = true}},
      .scalar_as_one_item = true,
      .takes_records = true,  // keys ordered by a Python compare_op over their fields; values moved whole
  };
  add_sorted_operands(operation, pairs, {"compare_op", "valid_items", "oob_default"});
  return operation;
}

}  // namespace

std::vector<OperationSpec> merge_sort() {
  return {sort_operation("merge_sort_keys", false), sort_operation("merge_sort_pairs", true)};
}

}  // namespace coop::catalog_families
