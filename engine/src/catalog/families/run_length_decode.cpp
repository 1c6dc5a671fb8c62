// Block run-length decoding: cub::BlockRunLengthDecode through an adapter
// (block_run_length_window.cuh) that checks the runs and scans their lengths itself. Thread t's
// RUNS_PER_THREAD runs (values, and lengths of any integer dtype: LengthT) are blocked; positive
// lengths come before any zero (trailing zeros are fewer runs). Decoded indices count in the
// offset dtype OffsetT, any integer dtype: decoded_offset_dtype, else the dtype of the arrays the
// kernel typed for it, else LengthT (at least 32 bits). One call decodes one window: slot i of
// thread t holds decoded index offset + t x DECODED_ITEMS_PER_THREAD + i, 0 at or past the total,
// the offset an index of any 64-bit value. relative_offsets receives each item's index within its
// run (past the total: OffsetT's max, or -1 for a signed OffsetT), total_decoded_size the total in
// every thread. run_length_decode_into decodes every window into a global array from
// destination_offset on, after one scan, with each item's index within its run at the same
// position of relative_offsets if given; it checks both arrays hold the stream, and returns the
// total (of OffsetT) to every thread.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockRunLengthWindow{"::coop_adapt::BlockRunLengthWindow",
                                         {"cub/block/block_scan.cuh", "cuda/std/limits", "cuda/std/type_traits"},
                                         adapters::source("block_run_length_window")};

OptionSpec offset_dtype_option() {
  OptionSpec option{.name = "decoded_offset_dtype", .type = OptionType::Choice, .allow_runtime = false};
  for (const DType dtype : integer_dtypes()) option.choices.emplace_back(info(dtype).name);
  option.default_choice = "uint32";  // where the lengths' dtype is not known
  option.default_like = "LengthT";
  option.fills_fact = "OffsetT";
  return option;
}

// An array of the offset dtype the method writes, `extent` items per thread.
OptionSpec offsets_output(std::string name, std::string extent) {
  OptionSpec option{.name = std::move(name), .type = OptionType::PayloadArray, .allow_static = false};
  option.array = {.element = "OffsetT", .extent = std::move(extent), .dtypes = integer_dtypes()};
  return option;
}

// A device array of the offset dtype the method writes at the decoded items' positions, which it
// checks holds them all.
OptionSpec offsets_memory(std::string name) {
  OptionSpec option{.name = std::move(name), .type = OptionType::DestinationArray, .allow_static = false};
  option.array = {.element = "OffsetT", .dtypes = integer_dtypes(), .sized = true};
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

// An index of any integer dtype, which the adapter takes whole (no operand it displaces) and traps
// if negative: its runtime value crosses as `dtype` (int64, or uint64 for an unsigned 64-bit one).
OptionSpec index_option(std::string name, std::string dtype) {
  OptionSpec option{.name = std::move(name), .type = OptionType::Offset};
  option.omitted_value = "0LL";
  option.index_dtype = std::move(dtype);
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
      .options = {decoded_items_option(), index_option("decoded_window_offset", "WindowOffsetT"), relative,
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
                   {"destination", OperandRole::DestinationArray, "", {.sized = true}}},
      .options = {decoded_items_option(), index_option("destination_offset", "DestinationOffsetT"),
                  offsets_memory("relative_offsets"), offset_dtype_option()},
      .method_arguments = {"run_values", "run_lengths", "destination", "destination_offset", "relative_offsets"},
      .forms = {block_form()},
      .returns_value = true,
      .result_dtype = "OffsetT",
      .dtypes = radix_key_dtypes(),
      .scalar_as_one_item = true,
  };
  return {window, into};
}

}  // namespace coop::catalog_families
