// Block radix ranks: cub::BlockRadixRank and cub::BlockRadixRankMatch through an adapter that
// twiddles the keys as cub::BlockRadixSort does (see block_radix_rank_keys.cuh). Each key's
// rank is its position in a stable sort of the tile by one digit, bits [begin_bit, end_bit)
// with end_bit = begin_bit + radix_bits (at most 8 bits); the ranks are a fresh int32 payload.
// exclusive_digit_prefix receives each digit's count of smaller digits (greater, descending),
// digit t x P + i in slot i of thread t, P = max(1, ceil(2^radix_bits / threads)).
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockRadixRankKeys{
    "::coop_adapt::BlockRadixRankKeys",
    {"cub/block/block_exchange.cuh", "cub/block/radix_rank_sort_operations.cuh", "cuda/std/type_traits"},
    adapters::source("block_radix_rank_keys")};

const std::vector<TemplateSlot> kBlockTemplate = {{"KeyT", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                                  {"RADIX_BITS", TemplateArg::Option, "radix_bits"},
                                                  {"DESCENDING", TemplateArg::Option, "descending"},
                                                  {"ALGORITHM", TemplateArg::Algorithm},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};

std::vector<AlgorithmSpec> rank_algorithms() {
  return {{"memoize", "::cub::RADIX_RANK_MEMOIZE"},
          {"basic", "::cub::RADIX_RANK_BASIC"},
          {"match", "::cub::RADIX_RANK_MATCH"}};
}

}  // namespace

std::vector<OperationSpec> radix_rank() {
  OptionSpec begin_bit{
      .name = "begin_bit", .type = OptionType::Count, .allow_runtime = false, .range = CountRange::KeyBitBegin};
  begin_bit.omitted_value = "0";
  OptionSpec end_bit{
      .name = "end_bit", .type = OptionType::Count, .allow_runtime = false, .range = CountRange::KeyBitEnd};
  end_bit.sum_of = {"begin_bit", "radix_bits"};
  OptionSpec radix_bits{.name = "radix_bits",
                        .type = OptionType::Count,
                        .default_choice = "4",
                        .allow_runtime = false,
                        .range = CountRange::DigitBits};
  OptionSpec descending{.name = "descending", .type = OptionType::Bool, .allow_runtime = false};
  OptionSpec prefix{.name = "exclusive_digit_prefix", .type = OptionType::PayloadArray, .allow_static = false};
  prefix.element = DType::Int32;
  prefix.array = {.extent = "digits_per_thread", .rule = ExtentRule::DigitsPerThread};
  return {{
      .name = "radix_rank_keys",
      .family = "radix_rank",
      .method = "RankKeys",
      .operands = {{"keys", OperandRole::PayloadIn},
                   {"ranks", OperandRole::PayloadResult, "", {.fixed = DType::Int32}}},
      .options = {begin_bit, end_bit, radix_bits, descending, prefix, algorithm_option(rank_algorithms(), "memoize")},
      .method_arguments = {"keys", "ranks", "begin_bit", "exclusive_digit_prefix"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = kBlockRadixRankKeys.name,
                 .header = "cub/block/block_radix_rank.cuh",
                 .template_args = kBlockTemplate,
                 .algorithms = rank_algorithms(),
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kBlockRadixRankKeys}},
                 .max_tile_items = kMaxRadixTile}},
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  }};
}

}  // namespace coop::catalog_families
