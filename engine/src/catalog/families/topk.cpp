// Block top-k: the k smallest (topk_min_*) or largest (topk_max_*) keys of a one-dimensional
// block's tile, and their values, through an adapter over CUB's block top-k where the CCCL in
// use has it, composed from cub::BlockRadixSort otherwise (see block_topk.cuh). The selection
// is a fresh payload whose first min(k, valid_items) blocked positions hold it, unordered; its
// other positions are unspecified. Keys order as a radix sort orders them, on the bits
// [begin_bit, end_bit) where those are given (as CUB's block top-k takes them).
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockTopK{"::coop_adapt::BlockTopK",
                              {"cub/block/block_radix_sort.cuh", "cub/util_type.cuh", "cuda/std/type_traits"},
                              adapters::source("block_topk")};

std::vector<TemplateSlot> block_template(bool pairs, bool largest) {
  return {{"KeyT", TemplateArg::DType},
          {"BLOCK_DIM_X", TemplateArg::BlockDimX},
          {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
          value_slot(pairs),
          {"MAX", TemplateArg::Literal, largest ? "true" : "false"}};
}

OperationSpec topk_operation(const std::string& name, bool largest, bool pairs) {
  OptionSpec k{.name = "k", .type = OptionType::Count, .range = CountRange::Selection, .required = true};
  OptionSpec valid_items{.name = "valid_items", .type = OptionType::Count, .range = CountRange::ZeroToTileCapacity};
  valid_items.omitted_value = "-1";  // the adapter's "the whole tile", where a bit range follows
  std::vector<OptionSpec> options = {k, valid_items};
  for (OptionSpec& bits : key_bit_range_options()) options.push_back(std::move(bits));
  OperationSpec operation{
      .name = name,
      .family = "topk",
      .method = "Select",
      .options = options,
      .forms = {{.group = GroupKind::Block,
                 .cub_class = kBlockTopK.name,
                 .header = "cub/block/block_radix_sort.cuh",
                 .template_args = block_template(pairs, largest),
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kBlockTopK}},
                 .needs_one_dimensional_block = true,
                 .max_tile_items = kMaxRadixTile}},
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  add_sorted_operands(operation, pairs, {"k", "valid_items", "begin_bit", "end_bit"});
  return operation;
}

}  // namespace

std::vector<OperationSpec> topk() {
  return {topk_operation("topk_min_keys", false, false), topk_operation("topk_max_keys", true, false),
          topk_operation("topk_min_pairs", false, true), topk_operation("topk_max_pairs", true, true)};
}

}  // namespace coop::catalog_families
