// Block top-k: the k smallest (topk_min_*) or largest (topk_max_*) keys of a one-dimensional
// block's tile, and their values, through an adapter over CUB's block top-k where the CCCL in
// use has it, composed from cub::BlockRadixSort otherwise (see block_topk.cuh). The selection
// is a fresh payload whose first min(k, valid_items) blocked positions hold it, unordered; its
// other positions are unspecified. Keys order as a radix sort orders them.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockTopK{"::coop_adapt::BlockTopK",
                              {"cub/block/block_radix_sort.cuh", "cub/util_type.cuh", "cuda/std/type_traits"},
                              adapters::source("block_topk")};

std::vector<TemplateSlot> block_template(const std::string& values, bool largest) {
  return {{"KeyT", TemplateArg::DType},
          {"BLOCK_DIM_X", TemplateArg::BlockDimX},
          {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
          values.empty() ? TemplateSlot{"ValueT", TemplateArg::Literal, "::cub::NullType"}
                         : TemplateSlot{"ValueT", TemplateArg::NamedDType, values},
          {"MAX", TemplateArg::Literal, largest ? "true" : "false"}};
}

OperationSpec topk_operation(const std::string& name, bool largest, bool pairs) {
  const std::string values = pairs ? "ValueT" : "";
  OptionSpec k{.name = "k", .type = OptionType::Count, .range = CountRange::Selection, .required = true};
  OptionSpec valid_items{.name = "valid_items", .type = OptionType::Count, .range = CountRange::ZeroToTileCapacity};
  OperationSpec operation{
      .name = name,
      .family = "topk",
      .method = "Select",
      .operands = {{"keys", OperandRole::PayloadIn}},
      .options = {k, valid_items},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = kBlockTopK.name,
                 .header = "cub/block/block_radix_sort.cuh",
                 .template_args = block_template(values, largest),
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kBlockTopK}},
                 .needs_one_dimensional_block = true,
                 .max_tile_items = kMaxRadixTile}},
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  if (pairs) operation.operands.push_back({"values", OperandRole::PayloadIn, "", {.element = "ValueT"}});
  operation.operands.push_back({"keys_result", OperandRole::PayloadResult, "keys"});
  if (pairs)
    operation.operands.push_back({"values_result", OperandRole::PayloadResult, "values", {.element = "ValueT"}});
  operation.method_arguments = {"keys_result"};
  if (pairs) operation.method_arguments.push_back("values_result");
  operation.method_arguments.insert(operation.method_arguments.end(), {"k", "valid_items"});
  return operation;
}

}  // namespace

std::vector<OperationSpec> topk() {
  return {topk_operation("topk_min_keys", false, false), topk_operation("topk_max_keys", true, false),
          topk_operation("topk_min_pairs", false, true), topk_operation("topk_max_pairs", true, true)};
}

}  // namespace coop::catalog_families
