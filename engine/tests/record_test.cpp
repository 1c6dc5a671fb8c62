// Records (a tuple of scalars, a NumPy aligned structured dtype): their names and layouts, which
// operations take them and how the others refuse them, real NVRTC compiles of the reductions and
// scans that take them, and an independent oracle: nvcc compiles a host program printing sizeof,
// alignof and every field's offset of each generated struct, which must equal the engine's layout
// (the layout the kernel side writes fields at).
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "coop/engine.hpp"
#include "coop/error.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

// One engine for the tests that compile: NVRTC, never an old cache entry.
Engine& engine() {
  static Engine instance([] {
    EngineConfig config;
    config.backend = "record_test";
    config.toolkit = ToolkitSearch::from_environment();
    config.cache.enabled = false;
    return config;
  }());
  return instance;
}

DType record(const std::string& name) {
  const auto parsed = parse_dtype(name);
  EXPECT_TRUE(parsed.has_value()) << name;
  return *parsed;
}

struct ExpectedLayout {
  std::string name;
  std::vector<int> offsets;
  int size;
  int alignment;
};

// Sizes 8, 12, 16, 24 and 32 bytes; alignments 4, 8 and 16; padding inside and at the end.
const std::vector<ExpectedLayout> kLayouts = {
    {"record(float32,float32)", {0, 4}, 8, 4},
    {"record(int32,float32,float32)", {0, 4, 8}, 12, 4},
    {"record(float32,float64)", {0, 8}, 16, 8},
    {"record(uint8,int16,uint32,int64)", {0, 2, 4, 8}, 16, 8},
    {"record(int8,float64,int16)", {0, 8, 16}, 24, 8},
    {"record(complex128)", {0}, 16, 16},
    {"record(bool,float16,bfloat16,complex128)", {0, 2, 4, 16}, 32, 16},
    {"record(complex64,float64,int32)", {0, 8, 16}, 24, 8},
};

TEST(Record, NamesParseToOneDtypeWithCsLayout) {
  for (const auto& expected : kLayouts) {
    const DType dtype = record(expected.name);
    EXPECT_EQ(info(dtype).name, expected.name);
    EXPECT_TRUE(info(dtype).is_record);
    EXPECT_FALSE(info(dtype).is_integer || info(dtype).is_floating || info(dtype).is_complex);
    const RecordLayout* layout = record_layout(dtype);
    ASSERT_NE(layout, nullptr);
    EXPECT_EQ(layout->offsets, expected.offsets) << expected.name;
    EXPECT_EQ(layout->size, expected.size) << expected.name;
    EXPECT_EQ(layout->alignment, expected.alignment) << expected.name;
    EXPECT_EQ(info(dtype).size, expected.size);
    EXPECT_EQ(info(dtype).alignment, expected.alignment);
    EXPECT_EQ(parse_dtype(expected.name), dtype);  // made once
  }
  EXPECT_EQ(parse_dtype("record(float32, float32)"), record("record(float32,float32)"));
  EXPECT_EQ(record_dtype({DType::Float32, DType::Float32}), record("record(float32,float32)"));
  EXPECT_EQ(info(record("record(int32,float32,float32)")).cpp, "coop_record_int32_float32_float32");
  EXPECT_EQ(record_layout(DType::Float32), nullptr);
}

TEST(Record, OnlyListsOfScalarsAreRecords) {
  EXPECT_FALSE(parse_dtype("record()"));
  EXPECT_FALSE(parse_dtype("record(float32,)"));
  EXPECT_FALSE(parse_dtype("record(float32,object)"));
  EXPECT_FALSE(parse_dtype("record(record(float32),float32)"));
  EXPECT_FALSE(parse_dtype("record(float32"));
  EXPECT_FALSE(record_dtype({}));
  EXPECT_FALSE(record_dtype(std::vector<DType>(kMaxRecordFields + 1, DType::Int8)));
  EXPECT_TRUE(record_dtype(std::vector<DType>(kMaxRecordFields, DType::Int8)));
  EXPECT_FALSE(record_dtype({record("record(float32,float32)")}));
}

TEST(Record, CrossesTheAbiByPointer) {
  const DType pair = record("record(float32,float32)");
  EXPECT_TRUE(passes_by_pointer(pair));
  EXPECT_EQ(abi_value_type(pair), "const void*");
  EXPECT_EQ(from_abi_value(pair, "value"), "*static_cast<const coop_record_float32_float32*>(value)");
}

CallFacts reduction(DType dtype, const std::string& op = "user:coop_record_test_op") {
  CallFacts facts;
  facts.operation = "reduce";
  facts.group = Group::this_block({128, 1, 1});
  facts.dtype = dtype;
  facts.payload = PayloadKind::Scalar;
  facts.where = "record_test";
  if (!op.empty()) facts.options["binary_op"] = OptionBinding::fixed(op);
  return facts;
}

std::string refusal(const CallFacts& facts) {
  try {
    plan(facts);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Record, OperatorsOnRecordsAreUserFunctions) {
  const DType pair = record("record(float32,float32)");
  EXPECT_NO_THROW(plan(reduction(pair)));
  for (const auto& [op, shown] : std::vector<std::pair<std::string, std::string>>{
           {"", "omitted (the sum)"}, {"max", "'max'"}, {"sum", "'sum'"}}) {
    const std::string message = refusal(reduction(pair, op));
    EXPECT_NE(message.find(shown + " on record(float32,float32)"), std::string::npos) << message;
    EXPECT_NE(message.find("a user operator"), std::string::npos) << message;
  }
  CallFacts seeded = reduction(pair);
  seeded.operation = "exclusive_scan";
  seeded.options = {{"scan_op", OptionBinding::fixed("user:coop_record_test_op")},
                    {"initial_value", OptionBinding::fixed("0")}};
  EXPECT_NE(refusal(seeded).find("records cross by pointer"), std::string::npos) << refusal(seeded);
}

TEST(Record, FamiliesThatTakeNoRecordsNameThemselvesAndTheType) {
  const DType pair = record("record(int32,float32)");
  CallFacts sort = reduction(pair, "");
  sort.operation = "radix_sort_keys";
  sort.payload = PayloadKind::Array;
  sort.items_per_thread = 4;
  const std::string message = refusal(sort);
  EXPECT_NE(message.find("record(int32,float32)"), std::string::npos) << message;
  EXPECT_NE(message.find("radix_sort_keys (family radix_sort) takes no records"), std::string::npos) << message;
  EXPECT_NE(message.find("reduce"), std::string::npos) << message;  // where records go
  CallFacts sum = reduction(pair, "");
  sum.operation = "sum";
  EXPECT_NE(refusal(sum).find("sum (family reduce) takes no records"), std::string::npos) << refusal(sum);
}

// The reductions and scans that take records, on blocks, warps, logical warps, groups of warps
// and clusters, one value per thread and ThreadData, with a user operator (and a prefix
// callback) per record.
std::vector<CallFacts> record_calls(DType dtype, int index) {
  const std::string op = "user:coop_record_op_" + std::to_string(index);
  const OptionBinding user = OptionBinding::fixed(op), runtime = OptionBinding::runtime();
  const auto call = [&](const std::string& operation, Group group, int items,
                        std::map<std::string, OptionBinding> options) {
    CallFacts facts;
    facts.operation = operation;
    facts.group = group;
    facts.dtype = dtype;
    facts.items_per_thread = items;
    facts.payload = items == 0 ? PayloadKind::Scalar : PayloadKind::Array;
    facts.items_per_thread = std::max(items, 1);
    facts.options = std::move(options);
    facts.where = "record_matrix";
    return facts;
  };
  const Group block = Group::this_block({128, 1, 1}), warp = Group::this_warp({128, 1, 1}, 32);
  const Group logical = Group::this_warp({128, 1, 1}, 8);
  std::vector<CallFacts> calls;
  for (const char* algorithm : {"warp_reductions", "raking", "raking_commutative_only"}) {
    calls.push_back(call("reduce", block, 0, {{"binary_op", user}, {"algorithm", OptionBinding::fixed(algorithm)}}));
  }
  calls.push_back(call("reduce", block, 4, {{"binary_op", user}}));
  calls.push_back(call("reduce", block, 0, {{"binary_op", user}, {"broadcast", OptionBinding::fixed("false")}}));
  calls.push_back(call("reduce", block, 0, {{"binary_op", user}, {"valid_items", runtime}}));
  calls.push_back(call("reduce", warp, 0, {{"binary_op", user}}));
  calls.push_back(call("reduce", logical, 0, {{"binary_op", user}}));
  calls.push_back(call("reduce", Group::warps_of({128, 1, 1}, 2), 0, {{"binary_op", user}}));
  calls.push_back(call("reduce", Group::cluster_of({128, 1, 1}, 2), 0, {{"binary_op", user}}));
  calls.push_back(call("reduce", warp, 3, {{"binary_op", user}}));
  calls.push_back(call("reduce", Group::warps_of({128, 1, 1}, 2), 3, {{"binary_op", user}}));
  calls.push_back(call("reduce", Group::cluster_of({128, 1, 1}, 2), 3, {{"binary_op", user}}));
  calls.push_back(call("inclusive_scan", block, 0, {{"scan_op", user}}));
  calls.push_back(call("inclusive_scan", block, 4, {{"scan_op", user}, {"aggregate_output", runtime}}));
  calls.push_back(call("exclusive_scan", block, 0, {{"scan_op", user}, {"initial_value", runtime}}));
  calls.push_back(call("exclusive_scan", block, 4, {{"scan_op", user}, {"initial_value", runtime}}));
  calls.push_back(call("scan", block, 0,
                       {{"scan_op", user},
                        {"mode", OptionBinding::fixed("exclusive")},
                        {"prefix_op", OptionBinding::fixed("user:coop_record_prefix_" + std::to_string(index))}}));
  calls.push_back(call("inclusive_scan", warp, 0, {{"scan_op", user}}));
  calls.push_back(call("exclusive_scan", logical, 0, {{"scan_op", user}, {"initial_value", runtime}}));
  calls.push_back(call("inclusive_scan", warp, 2, {{"scan_op", user}}));
  return calls;
}

TEST(Record, EveryReductionAndScanOfEveryLayoutCompilesToLtoIr) {
  std::vector<Plan> plans;
  for (std::size_t i = 0; i < kLayouts.size(); ++i) {
    for (const CallFacts& facts : record_calls(record(kLayouts[i].name), static_cast<int>(i))) {
      plans.push_back(engine().plan(facts));
    }
  }
  ASSERT_EQ(plans.size(), kLayouts.size() * 21);
  const Bundle bundle = engine().compile(plans, "sm_90");  // the static_asserts hold NVRTC to each layout
  ASSERT_EQ(bundle.providers.size(), plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Provider& provider = bundle.providers[i];
    for (const AbiParam& param : provider.abi) {
      if (param.kind == AbiKind::Value && param.value_dtype.starts_with("record("))
        EXPECT_EQ(param.cpp_type, "const void*") << plans[i].describe();
    }
    const bool scalar = plans[i].facts.payload == PayloadKind::Scalar;
    ASSERT_EQ(provider.result.has_value(), scalar || plans[i].facts.operation == "reduce") << plans[i].describe();
    if (provider.result) EXPECT_EQ(provider.result->value_dtype, info(plans[i].facts.dtype).name);
    for (const ExternalFunction& function : provider.external_functions) EXPECT_TRUE(function.by_pointer);
  }
  EXPECT_NE(bundle.source.find("static_assert(sizeof(coop_record_int8_float64_int16) == 24"), std::string::npos);
}

// The families that move records whole (load, store, exchange, shuffle) compile for every
// layout, on blocks and on warps: CUB's classes copy any type, vectorized loads fall back to words.
TEST(Record, LoadsStoresExchangesAndShufflesOfEveryLayoutCompile) {
  std::vector<Plan> plans;
  const Group block = Group::this_block({128, 1, 1}), warp = Group::this_warp({128, 1, 1}, 32);
  for (const auto& layout : kLayouts) {
    const auto call = [&](const std::string& operation, Group group, int items,
                          std::map<std::string, OptionBinding> options) {
      CallFacts facts;
      facts.operation = operation;
      facts.group = group;
      facts.dtype = record(layout.name);
      facts.items_per_thread = std::max(items, 1);
      facts.payload = items == 0 ? PayloadKind::Scalar : PayloadKind::Array;
      facts.options = std::move(options);
      facts.where = "record_movement";
      return facts;
    };
    const auto fixed = [](const char* value) { return OptionBinding::fixed(value); };
    for (const char* algorithm : {"direct", "striped", "vectorize", "transpose", "warp_transpose"}) {
      plans.push_back(engine().plan(call("load", block, 4, {{"algorithm", fixed(algorithm)}})));
      plans.push_back(engine().plan(call("store", block, 4, {{"algorithm", fixed(algorithm)}})));
    }
    plans.push_back(engine().plan(call("exchange", block, 4, {{"mode", fixed("striped_to_blocked")}})));
    for (const char* algorithm : {"direct", "striped", "vectorize", "transpose"}) {
      plans.push_back(engine().plan(call("load", warp, 4, {{"algorithm", fixed(algorithm)}})));
      plans.push_back(engine().plan(call("store", warp, 4, {{"algorithm", fixed(algorithm)}})));
    }
    plans.push_back(engine().plan(call("exchange", warp, 4, {{"mode", fixed("blocked_to_striped")}})));
    plans.push_back(engine().plan(call("shuffle", block, 4, {{"mode", fixed("up")}})));
    plans.push_back(
        engine().plan(call("shuffle", block, 0, {{"mode", fixed("offset")}, {"distance", OptionBinding::runtime()}})));
  }
  const Bundle bundle = engine().compile(plans, "sm_90");
  EXPECT_EQ(bundle.providers.size(), plans.size());
}

// The sorts: a block's and a warp's merge sorts order record keys by a user comparator,
// carrying record values; a radix sort carries record values beside its integer keys.
TEST(Record, SortsOfRecordKeysAndValuesOfEveryLayoutCompile) {
  std::vector<Plan> plans;
  const Group block = Group::this_block({128, 1, 1}), warp = Group::this_warp({128, 1, 1}, 32);
  for (std::size_t i = 0; i < kLayouts.size(); ++i) {
    const auto sort = [&](const std::string& operation, Group group, DType keys, bool compare) {
      CallFacts facts;
      facts.operation = operation;
      facts.group = group;
      facts.dtype = keys;
      facts.items_per_thread = 4;
      facts.payload = PayloadKind::Array;
      if (compare) facts.options["compare_op"] = OptionBinding::fixed("user:coop_record_less_" + std::to_string(i));
      if (operation.ends_with("pairs")) facts.dtypes["ValueT"] = record(kLayouts[i].name);
      facts.where = "record_sorts";
      return facts;
    };
    const DType keys = record(kLayouts[i].name);
    plans.push_back(engine().plan(sort("merge_sort_keys", block, keys, true)));
    plans.push_back(engine().plan(sort("merge_sort_pairs", block, keys, true)));
    plans.push_back(engine().plan(sort("merge_sort_keys", warp, keys, true)));
    plans.push_back(engine().plan(sort("merge_sort_pairs", warp, keys, true)));
    plans.push_back(engine().plan(sort("radix_sort_pairs", block, DType::UInt32, false)));
    const std::string refused = refusal(sort("merge_sort_keys", block, keys, false));
    EXPECT_NE(refused.find("omitted (less) on " + kLayouts[i].name), std::string::npos) << refused;
    EXPECT_NE(refused.find("a user comparator"), std::string::npos) << refused;
  }
  const Bundle bundle = engine().compile(plans, "sm_90");
  ASSERT_EQ(bundle.providers.size(), plans.size());
  for (const Provider& provider : bundle.providers) {
    for (const ExternalFunction& function : provider.external_functions) EXPECT_TRUE(function.by_pointer);
  }
}

std::string shell_quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// nvcc's host compiler lays out each generated struct as C++ does: sizeof, alignof and each
// field's offset must be the engine's.
TEST(Record, NvccAgreesWithTheEngineOnEveryLayout) {
  std::set<std::string> headers = {"cuda/std/cstdint", "cuda/std/complex", "cuda_fp16.h", "cuda_bf16.h"};
  std::ostringstream out;
  out << "#include <cstdio>\n#include <cstddef>\n";
  for (const auto& header : headers) out << "#include <" << header << ">\n";
  for (const auto& expected : kLayouts) out << record_definition(record(expected.name)) << "\n";
  out << "int main() {\n";
  for (std::size_t i = 0; i < kLayouts.size(); ++i) {
    const std::string type(info(record(kLayouts[i].name)).cpp);
    out << "  std::printf(\"" << i << " %zu %zu\", sizeof(" << type << "), alignof(" << type << "));\n";
    for (std::size_t field = 0; field < kLayouts[i].offsets.size(); ++field)
      out << "  std::printf(\" %zu\", offsetof(" << type << ", f" << field << "));\n";
    out << "  std::printf(\"\\n\");\n";
  }
  out << "  return 0;\n}\n";

  const testing::TempDir dir;
  const auto source = dir.path() / "record_oracle.cu";
  const auto program = dir.path() / "record_oracle";
  testing::write_text(source, out.str());
  const testing::CommandResult built = testing::run_command(
      std::string(COOP_NVCC) + " -std=c++17 -arch=sm_90 -I" + shell_quoted(engine().toolkit().cccl_include) + " -I" +
      shell_quoted(engine().toolkit().cuda_include) + " " + shell_quoted(source) + " -o " + shell_quoted(program));
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const testing::CommandResult ran = testing::run_command(shell_quoted(program));
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  std::istringstream lines(ran.output);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream numbers(line);
    std::size_t index = 0;
    int size = 0, alignment = 0;
    numbers >> index >> size >> alignment;
    ASSERT_EQ(index, rows++) << ran.output;
    const RecordLayout& layout = *record_layout(record(kLayouts[index].name));
    EXPECT_EQ(size, layout.size) << kLayouts[index].name;
    EXPECT_EQ(alignment, layout.alignment) << kLayouts[index].name;
    std::vector<int> offsets;
    for (int offset = 0; numbers >> offset;) offsets.push_back(offset);
    EXPECT_EQ(offsets, layout.offsets) << kLayouts[index].name;
  }
  EXPECT_EQ(rows, kLayouts.size()) << ran.output;
}

}  // namespace
}  // namespace coop
