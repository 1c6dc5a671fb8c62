// Block histograms: cub::BlockHistogram through an adapter (block_histogram_counts.cuh) that
// keeps the counters in the scratch and returns them as a fresh striped payload of
// bins_per_thread counters per thread: slot i of the thread of linear rank t counts bin
// t + i x threads (0 past the last bin), zeroed on every call. Samples are integers read as
// their unsigned bits; those not below `bins` (negative ones included) are not counted.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const ClassAdapter kBlockHistogramCounts{"::coop_adapt::BlockHistogramCounts",
                                         {"cuda/std/limits", "cuda/std/type_traits"},
                                         adapters::source("block_histogram_counts")};

const std::vector<DType> kCounterDtypes = {DType::Int32, DType::UInt32, DType::Int64, DType::UInt64};

std::vector<AlgorithmSpec> histogram_algorithms() {
  return {{.name = "atomic", .cub_enum = "::cub::BLOCK_HISTO_ATOMIC", .needs_scratch = true},
          {.name = "sort", .cub_enum = "::cub::BLOCK_HISTO_SORT", .needs_scratch = true}};
}

OptionSpec counter_dtype_option() {
  OptionSpec option{.name = "counter_dtype", .type = OptionType::Choice, .allow_runtime = false};
  for (const DType dtype : kCounterDtypes) option.choices.emplace_back(info(dtype).name);
  option.default_choice = "int32";
  option.fills_fact = "CounterT";
  return option;
}

}  // namespace

std::vector<OperationSpec> histogram() {
  OptionSpec bins{.name = "bins",
                  .type = OptionType::Count,
                  .allow_runtime = false,
                  .range = CountRange::Positive,
                  .required = true,
                  .at_most_threads_times = "bins_per_thread"};
  OptionSpec bins_per_thread{.name = "bins_per_thread",
                             .type = OptionType::Count,
                             .default_choice = "1",
                             .allow_runtime = false,
                             .range = CountRange::Positive,
                             .fills_fact = "BINS_PER_THREAD"};
  OperandSpec counts{"counts",
                     OperandRole::PayloadResult,
                     "",
                     {.element = "CounterT", .extent = "BINS_PER_THREAD", .dtypes = kCounterDtypes}};
  return {{
      .name = "histogram",
      .family = "histogram",
      .method = "Histogram",
      .operands = {{"samples", OperandRole::PayloadIn}, counts},
      .options = {bins, bins_per_thread, counter_dtype_option(), algorithm_option(histogram_algorithms(), "atomic")},
      .method_arguments = {"samples", "counts"},
      .forms = {{.group = GroupKind::Block,
                 .cub_class = kBlockHistogramCounts.name,
                 .header = "cub/block/block_histogram.cuh",
                 .template_args = {{"T", TemplateArg::DType},
                                   {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                   {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                   {"BINS", TemplateArg::Option, "bins"},
                                   {"ALGORITHM", TemplateArg::Algorithm},
                                   {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                   {"BLOCK_DIM_Z", TemplateArg::BlockDimZ},
                                   // The adapter's: the counters it returns.
                                   {"CounterT", TemplateArg::NamedDType, "CounterT"},
                                   {"BINS_PER_THREAD", TemplateArg::NamedExtent, "BINS_PER_THREAD"}},
                 .algorithms = histogram_algorithms(),
                 .needs_scratch = true,
                 .payloads = {{PayloadKind::Array, {}, &kBlockHistogramCounts}}}},
      .dtypes = integer_dtypes(),
      .scalar_as_one_item = true,
  }};
}

}  // namespace coop::catalog_families
