// The counting coverage matrix: every CallFacts the compile-matrix and scratch-oracle tests plan
// for cub::BlockHistogram (through its counters adapter) and cub::BlockRunLengthDecode (through
// its window adapter), grouped the way they are compiled
// (one NVRTC call per bundle). The axes are written out here rather than read from the catalog,
// so a catalog that loses an algorithm, a sample or a counter dtype fails the tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "matrix_bundle.hpp"

namespace coop::testing {

inline const std::vector<DType> kSampleDtypes = {DType::Int8,  DType::Int16,  DType::Int32,  DType::Int64,
                                                 DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64};
inline const std::vector<DType> kCounterDtypes = {DType::Int32, DType::UInt32, DType::Int64, DType::UInt64};
inline const std::vector<Dim3> kHistogramBlocks = {{128, 1, 1}, {32, 4, 1}, {8, 4, 2}};
inline const std::vector<int> kHistogramItems = {1, 4, 7};
// (bins, bins_per_thread) at 128 threads: one bin, a prime, a byte's 256 and 4096 (16-bit samples' range).
inline const std::vector<std::pair<int, int>> kBinCounts = {{1, 1}, {13, 1}, {256, 2}, {4096, 32}};

inline CallFacts histogram_call(Dim3 block, DType samples, int items, int bins, int per_thread, Bindings options) {
  CallFacts facts;
  facts.operation = "histogram";
  facts.group = Group::this_block(block);
  facts.dtype = samples;
  facts.items_per_thread = items;
  facts.options = std::move(options);
  facts.options["bins"] = OptionBinding::fixed(std::to_string(bins));
  facts.options["bins_per_thread"] = OptionBinding::fixed(std::to_string(per_thread));
  facts.where = "counting_matrix";
  return facts;
}

// Per algorithm: every sample dtype with every counter dtype (256 bins, 4 items, 128 threads);
// uint8 and int32 samples in every shape and item count and with every bin count.
inline MatrixBundle histogram_bundle() {
  MatrixBundle bundle{"histogram", {}};
  for (const char* algorithm : {"atomic", "sort"}) {
    const auto chosen = OptionBinding::fixed(algorithm);
    for (const DType samples : kSampleDtypes) {
      for (const DType counters : kCounterDtypes) {
        bundle.calls.push_back(histogram_call(
            kHistogramBlocks[0], samples, 4, 256, 2,
            {{"algorithm", chosen}, {"counter_dtype", OptionBinding::fixed(std::string(info(counters).name))}}));
      }
    }
    for (const DType samples : {DType::UInt8, DType::Int32}) {
      for (const Dim3 block : kHistogramBlocks) {
        for (const int items : kHistogramItems) {
          bundle.calls.push_back(histogram_call(block, samples, items, 97, 2, {{"algorithm", chosen}}));
        }
      }
      for (const auto& [bins, per_thread] : kBinCounts) {
        bundle.calls.push_back(
            histogram_call(kHistogramBlocks[0], samples, 3, bins, per_thread, {{"algorithm", chosen}}));
      }
    }
  }
  return bundle;
}

inline const std::vector<DType> kRunLengthDtypes = kSampleDtypes;  // every integer width, signed or not
inline const std::vector<DType> kRunValueDtypes = {DType::Int8,    DType::UInt16,  DType::Int64,
                                                   DType::Float16, DType::Float32, DType::Float64};
inline const std::vector<DType> kDecodedOffsetDtypes = kSampleDtypes;  // every integer width too
// One unsigned offset dtype of each width the adapter hands CUB, and a signed one.
inline const std::vector<DType> kOffsetDtypeSamples = {DType::UInt32, DType::Int64, DType::UInt64};

// A run-length call; `offsets` omitted leaves decoded_offset_dtype to follow the lengths' dtype.
inline CallFacts run_length_call(const char* operation, Dim3 block, DType values, int runs, DType lengths,
                                 int decoded_items, std::optional<DType> offsets, Bindings options,
                                 std::map<std::string, DType> dtypes = {}) {
  CallFacts facts;
  facts.operation = operation;
  facts.group = Group::this_block(block);
  facts.dtype = values;
  facts.items_per_thread = runs;
  facts.options = std::move(options);
  facts.options["decoded_items_per_thread"] = OptionBinding::fixed(std::to_string(decoded_items));
  if (offsets) facts.options["decoded_offset_dtype"] = OptionBinding::fixed(std::string(info(*offsets).name));
  facts.dtypes = std::move(dtypes);
  facts.dtypes["LengthT"] = lengths;
  facts.where = "counting_matrix";
  return facts;
}

// The window: every length dtype with the offset dtype following it, and every offset dtype (int32
// values, 2 runs and 3 decoded items per thread, 128 threads); the value dtypes; int32 runs in every
// shape with 1 and 4 runs per thread; and, per sampled offset dtype at 1 decoded item, the optional
// outputs and window offsets: a runtime uint64 index, a static one, a runtime int64 one, and a static
// one past int64's range.
inline MatrixBundle run_length_window_bundle() {
  MatrixBundle bundle{"run_length_decode", {}};
  const Dim3 block = kHistogramBlocks[0];
  for (const DType lengths : kRunLengthDtypes) {
    bundle.calls.push_back(run_length_call("run_length_decode", block, DType::Int32, 2, lengths, 3, std::nullopt, {}));
  }
  for (const DType offsets : kDecodedOffsetDtypes) {
    bundle.calls.push_back(run_length_call("run_length_decode", block, DType::Int32, 2, DType::UInt16, 3, offsets, {}));
  }
  for (const DType values : kRunValueDtypes) {
    bundle.calls.push_back(run_length_call("run_length_decode", block, values, 2, DType::UInt32, 3, DType::UInt32, {}));
  }
  for (const Dim3 shape : kHistogramBlocks) {
    for (const int runs : {1, 4}) {
      bundle.calls.push_back(
          run_length_call("run_length_decode", shape, DType::Int32, runs, DType::Int64, 5, DType::UInt32, {}));
    }
  }
  const auto runtime = OptionBinding::runtime();
  for (const DType offsets : kOffsetDtypeSamples) {
    CallFacts both = run_length_call(
        "run_length_decode", block, DType::Int32, 2, DType::UInt16, 1, offsets,
        {{"decoded_window_offset", runtime}, {"relative_offsets", runtime}, {"total_decoded_size", runtime}},
        {{"WindowOffsetT", DType::UInt64}});
    both.extents["TOTAL_ITEMS"] = 1;
    bundle.calls.push_back(both);
    CallFacts total =
        run_length_call("run_length_decode", block, DType::Int32, 2, DType::UInt16, 1, offsets,
                        {{"decoded_window_offset", OptionBinding::fixed("7")}, {"total_decoded_size", runtime}});
    total.extents["TOTAL_ITEMS"] = 2;
    bundle.calls.push_back(total);
    bundle.calls.push_back(run_length_call("run_length_decode", block, DType::Int32, 2, DType::UInt16, 1, offsets,
                                           {{"decoded_window_offset", runtime}, {"relative_offsets", runtime}},
                                           {{"WindowOffsetT", DType::Int64}}));
    bundle.calls.push_back(run_length_call("run_length_decode", block, DType::Int32, 2, DType::UInt16, 1, offsets,
                                           {{"decoded_window_offset", OptionBinding::fixed("18446744073709551610")}}));
  }
  return bundle;
}

// Into global memory: each sampled offset dtype in every shape, without options, with a runtime int64
// destination offset, and with relative offsets and a runtime uint64 one (int16 values, int32 lengths,
// 2 runs and 4 decoded items per thread); and the destination and the relative offsets as strided views.
inline MatrixBundle run_length_into_bundle() {
  MatrixBundle bundle{"run_length_decode_into", {}};
  const auto runtime = OptionBinding::runtime();
  for (const DType offsets : kOffsetDtypeSamples) {
    for (const Dim3 shape : kHistogramBlocks) {
      bundle.calls.push_back(
          run_length_call("run_length_decode_into", shape, DType::Int16, 2, DType::Int32, 4, offsets, {}));
      bundle.calls.push_back(run_length_call("run_length_decode_into", shape, DType::Int16, 2, DType::Int32, 4, offsets,
                                             {{"destination_offset", runtime}},
                                             {{"DestinationOffsetT", DType::Int64}}));
      bundle.calls.push_back(run_length_call("run_length_decode_into", shape, DType::Int16, 2, DType::Int32, 4, offsets,
                                             {{"destination_offset", runtime}, {"relative_offsets", runtime}},
                                             {{"DestinationOffsetT", DType::UInt64}}));
    }
  }
  for (const char* view : {"destination", "relative_offsets"}) {
    CallFacts viewed = run_length_call("run_length_decode_into", kHistogramBlocks[0], DType::Int16, 2, DType::Int32, 4,
                                       DType::UInt64, {{"relative_offsets", runtime}});
    viewed.strided_views[view] = 1;
    bundle.calls.push_back(viewed);
  }
  return bundle;
}

inline CallFacts batched_call(int width, DType dtype, int batches, Bindings options) {
  CallFacts facts;
  facts.operation = "reduce_batched";
  facts.group = Group::this_warp({64, 1, 1}, width);
  facts.dtype = dtype;
  facts.items_per_thread = batches;
  facts.options = std::move(options);
  facts.where = "counting_matrix";
  return facts;
}

// cub::WarpReduceBatched (CCCL 3.5): int32 and float32 in 3 widths x 3 batch counts (fewer and
// more batches than lanes) x 2 layouts, and with a built-in operator; the other 10 numeric dtypes once.
inline MatrixBundle batched_bundle() {
  MatrixBundle bundle{"reduce_batched", {}};
  for (const DType dtype : {DType::Int32, DType::Float32}) {
    for (const int width : {1, 8, 32}) {
      for (const int batches : {1, 4, 33}) {
        for (const char* layout : {"striped", "blocked"}) {
          bundle.calls.push_back(
              batched_call(width, dtype, batches, {{"output_layout", OptionBinding::fixed(layout)}}));
        }
      }
    }
    bundle.calls.push_back(batched_call(32, dtype, 5, {{"binary_op", OptionBinding::fixed("max")}}));
  }
  for (const DType dtype : {DType::Int8, DType::Int16, DType::Int64, DType::UInt8, DType::UInt16, DType::UInt32,
                            DType::UInt64, DType::Float16, DType::BFloat16, DType::Float64}) {
    bundle.calls.push_back(batched_call(8, dtype, 3, {}));
  }
  return bundle;
}

inline std::vector<MatrixBundle> counting_matrix() {
  return {histogram_bundle(), run_length_window_bundle(), run_length_into_bundle()};
}

// Only where the CCCL in use has cub::WarpReduceBatched.
inline std::vector<MatrixBundle> batched_matrix() { return {batched_bundle()}; }

}  // namespace coop::testing
