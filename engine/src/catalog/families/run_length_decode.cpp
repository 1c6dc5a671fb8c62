// Block run-length decoding: cub::BlockRunLengthDecode through an adapter
// (block_run_length_window.cuh) that checks the runs and scans their lengths itself. Thread t's
// RUNS_PER_THREAD runs (values, and lengths of any integer dtype: LengthT) are blocked; positive
// lengths come before any zero (trailing zeros are fewer runs). One call decodes one window: slot
// i of thread t holds decoded index offset + t x DECODED_ITEMS_PER_THREAD + i, 0 at or past the
// total. relative_offsets receives each item's index within its run (the offset dtype's max past
// the total), total_decoded_size the total in every thread; both are of the offset dtype OffsetT.
// run_length_decode_into decodes every window into a global array from destination_offset on,
// after one scan, and returns the total (of OffsetT) to every thread.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockRunLengthWindow{"::coop_adapt::BlockRunLengthWindow",
                                         {"cub/block/block_scan.cuh", "cuda/std/limits", "cuda/std/type_traits"},
                                         adapters::source("block_run_length_window")};

const std::vector<DType> kOffsetDtypes = {DType::UInt32, DType::UInt64};

OptionSpec offset_dtype_option() {
  OptionSpec option{.name = "decoded_offset_dtype", .type = OptionType::Choice, .allow_runtime = false};
  for (const DType dtype : kOffsetDtypes) option.choices.emplace_back(info(dtype).name);
  option.default_choice = "uint32";
  option.fills_fact = "OffsetT";
  return option;
}

// An array of the offset dtype the method writes, `extent` long.
OptionSpec offsets_output(std::string name, std::string extent) {
  OptionSpec option{.name = std::move(name), .type = OptionType::PayloadArray, .allow_static = false};
  option.array = {.element = "OffsetT", .extent = std::move(extent), .dtypes = kOffsetDtypes};
  return option;
}

// BlockRunLengthDecode's template, the adapter's LengthT last.
const std::vector<TemplateSlot> kBlockTemplate = {
    {"ItemT", TemplateArg::DType},
    {"BLOCK_DIM_X", TemplateArg::BlockDimX},
    {"RUNS_PER_THREAD", TemplateArg::ItemsPerThread},
    {"DECODED_ITEMS_PER_THREAD", TemplateArg::NamedExtent, "DECODED_ITEMS_PER_THREAD"},
    {"DecodedOffsetT", TemplateArg::NamedDType, "OffsetT"},
    {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
    {"BLOCK_DIM_Z", TemplateArg::BlockDimZ},
    {"LengthT", TemplateArg::NamedDType, "LengthT"}};

GroupForm block_form() {
  return {.group = GroupKind::Block,
          .cub_class = kBlockRunLengthWindow.name,
          .header = "cub/block/block_run_length_decode.cuh",
          .template_args = kBlockTemplate,
          .needs_scratch = true,
          .payloads = {{PayloadKind::Array, {}, &kBlockRunLengthWindow}}};
}

OptionSpec decoded_items_option() {
  return {.name = "decoded_items_per_thread",
          .type = OptionType::Count,
          .allow_runtime = false,
          .range = CountRange::Positive,
          .required = true,
          .fills_fact = "DECODED_ITEMS_PER_THREAD"};
}

// A 64-bit index at run time, which the adapter takes whole (no operand it displaces) and traps if negative.
OptionSpec index_option(std::string name) {
  OptionSpec option{.name = std::move(name), .type = OptionType::Offset};
  option.omitted_value = "0LL";
  return option;
}

OperandSpec lengths_operand() {
  return {"run_lengths", OperandRole::PayloadIn, "", {.element = "LengthT", .dtypes = integer_dtypes()}};
}

}  // namespace

std::vector<OperationSpec> run_length_decode() {
  OptionSpec relative = offsets_output("relative_offsets", "DECODED_ITEMS_PER_THREAD");
  relative.omitted_value = "::coop_adapt::NoOutput{}";
  OperationSpec window{
      .name = "run_length_decode",
      .family = "run_length_decode",
      .method = "Decode",
      .operands = {{"run_values", OperandRole::PayloadIn},
                   lengths_operand(),
                   {"decoded", OperandRole::PayloadResult, "", {.extent = "DECODED_ITEMS_PER_THREAD"}}},
      .options = {decoded_items_option(), index_option("decoded_window_offset"), relative,
                  offsets_output("total_decoded_size", "TOTAL_ITEMS"), offset_dtype_option()},
      .method_arguments = {"run_values", "run_lengths", "decoded", "decoded_window_offset", "relative_offsets",
                           "total_decoded_size"},
      .forms = {block_form()},
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  OperationSpec into{
      .name = "run_length_decode_into",
      .family = "run_length_decode",
      .method = "DecodeInto",
      .operands = {{"run_values", OperandRole::PayloadIn},
                   lengths_operand(),
                   {"destination", OperandRole::DestinationArray}},
      .options = {decoded_items_option(), index_option("destination_offset"), offset_dtype_option()},
      .method_arguments = {"run_values", "run_lengths", "destination", "destination_offset"},
      .forms = {block_form()},
      .returns_value = true,
      .result_dtype = "OffsetT",
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  return {window, into};
}

}  // namespace coop::catalog_families
