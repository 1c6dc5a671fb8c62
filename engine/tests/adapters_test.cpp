// The device C++ adapters, compiled on their own by nvcc: a StridedView, run on
// the host, must walk every view in C order through its strides, as NumPy's
// ravel(order="C") of the same view does; every class adapter the catalog names
// must compile from its .cuh text and the headers it declares.
#include <gtest/gtest.h>

#include <set>

#include "adapters/adapters.hpp"
#include "coop/catalog.hpp"
#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

std::string shell_quoted(const std::string& text) { return "'" + text + "'"; }

// Each view of a 6x7x8 base (C order, elements numbered) with its expected C-order
// elements, computed here the plain way: nested loops over the view's index.
const char* kCheck = R"(
#include <cstdio>
#include <vector>

template <int N>
int check(const char* name, const long long (&extents)[N], const long long (&strides)[N], long long start) {
  static int base[6 * 7 * 8];
  for (int i = 0; i < 6 * 7 * 8; ++i) base[i] = i;
  coop_adapt::StridedView<int, N> view{base + start, {}, {}};
  long long count = 1;
  for (int d = 0; d < N; ++d) {
    view.extents[d] = extents[d];
    view.strides[d] = strides[d];
    count *= extents[d];
  }
  long long index[N] = {};
  for (long long flat = 0; flat < count; ++flat) {
    long long offset = start;
    for (int d = 0; d < N; ++d) offset += index[d] * strides[d];
    if (view[flat] != base[offset] || *(view + flat) != base[offset]) {
      std::printf("%s: element %lld is %d, expected %d\n", name, flat, view[flat], base[offset]);
      return 1;
    }
    for (int d = N - 1; d >= 0 && ++index[d] == extents[d]; --d) index[d] = 0;
  }
  return 0;
}

int main() {
  int failures = 0;
  failures += check<1>("every other", {100}, {2}, 3);
  failures += check<1>("reversed", {50}, {-1}, 49);
  failures += check<2>("sub-matrix", {3, 4}, {56, 1}, 9);       // rows of a 6x56 matrix
  failures += check<2>("fortran order", {8, 6}, {1, 8}, 0);     // a 8x6 F-order array
  failures += check<2>("both reversed", {3, 5}, {-16, -2}, 300);
  failures += check<3>("volume", {2, 3, 4}, {112, -8, 2}, 17);
  std::printf("%d failures\n", failures);
  return failures;
}
)";

TEST(Adapters, StridedViewWalksViewsInCOrder) {
  const testing::TempDir dir;
  const auto source = dir.path() / "strided_view_check.cu";
  const auto program = dir.path() / "strided_view_check";
  testing::write_text(source, std::string(adapters::source("strided_view")) + kCheck);
  const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  const testing::CommandResult built =
      testing::run_command(std::string(COOP_NVCC) + " -std=c++17 -I" + shell_quoted(toolkit.cccl_include) + " " +
                           shell_quoted(source.string()) + " -o " + shell_quoted(program.string()));
  ASSERT_EQ(built.exit_code, 0) << built.output;
  const testing::CommandResult ran = testing::run_command(shell_quoted(program.string()));
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("0 failures"), std::string::npos) << ran.output;
}

// Each class adapter the catalog uses, with the form of the CUB class it derives from and its operation.
struct AdapterUse {
  const ClassAdapter* adapter;
  const GroupForm* form;
  const OperationSpec* operation;
};

std::vector<AdapterUse> catalog_adapters() {
  std::vector<AdapterUse> found;
  std::set<const ClassAdapter*> seen;
  for (const auto& operation : catalog()) {
    for (const auto& form : operation.forms) {
      for (const auto& shape : form.payloads) {
        if (shape.adapter != nullptr && seen.insert(shape.adapter).second)
          found.push_back({shape.adapter, &form, &operation});
      }
    }
  }
  return found;
}

// A template slot's option at its default, as the slot spells it.
std::string option_default(const OptionSpec& option) {
  if (option.type == OptionType::Bool) return option.default_choice.empty() ? "false" : option.default_choice;
  if (option.type == OptionType::Choice && !option.choices_cpp.empty()) {
    for (std::size_t i = 0; i < option.choices.size(); ++i) {
      if (option.choices[i] == option.default_choice) return option.choices_cpp[i];
    }
  }
  if (option.type == OptionType::Count && option.default_choice.empty()) return "16";  // a required count: bins
  return option.default_choice;
}

// A named dtype's sample: the first its arrays take, or the default of the option filling it
// (a run-length decode's LengthT, an integer; OffsetT, uint32), else float.
std::string named_dtype_sample(const OperationSpec& operation, const std::string& name) {
  for (const auto& option : operation.options) {
    if (option.fills_fact == name && option.type == OptionType::Choice)
      return std::string(info(*parse_dtype(option.default_choice)).cpp);
  }
  std::vector<ArrayType> arrays;
  for (const auto& operand : operation.operands) arrays.push_back(operand.array);
  for (const auto& option : operation.options) arrays.push_back(option.array);
  for (const auto& array : arrays) {
    if (array.element == name && !array.dtypes.empty()) return std::string(info(array.dtypes.front()).cpp);
  }
  return "float";
}

// The form's template slots bound for int, a 64-thread block, logical warps of 8
// lanes, 4 items, each option's default (16 for a required count), a dtype its arrays take
// for a named dtype and 16 for a named extent.
std::string sample_arguments(const GroupForm& form, const OperationSpec& operation) {
  std::string arguments;
  for (const TemplateSlot& slot : form.template_args) {
    std::string value;
    switch (slot.from) {
      case TemplateArg::DType:
        value = "int";
        break;
      case TemplateArg::BlockDimX:
        value = "64";
        break;
      case TemplateArg::BlockDimY:
      case TemplateArg::BlockDimZ:
        value = "1";
        break;
      case TemplateArg::ItemsPerThread:
        value = "4";
        break;
      case TemplateArg::LogicalWarpThreads:
        value = form.group == GroupKind::Warps ? "64" : "8";  // a group of two warps; a logical warp of 8 lanes
        break;
      case TemplateArg::ClusterBlocks:
        value = "2";
        break;
      case TemplateArg::Algorithm:
        value = form.algorithms.front().cub_enum;
        break;
      case TemplateArg::Option:
        value = option_default(*operation.option(slot.fact));
        break;
      case TemplateArg::NamedDType:
        value = named_dtype_sample(operation, slot.fact);
        break;
      case TemplateArg::NamedExtent:
        value = "16";
        break;
      case TemplateArg::Literal:
        value = slot.fact;
        break;
    }
    arguments += (arguments.empty() ? "" : ", ") + value;
  }
  return arguments;
}

// A translation unit of the adapter alone: its headers, its text, and a kernel
// making one of the sample specialization (every non-template member
// instantiated explicitly).
std::string adapter_unit(const ClassAdapter& adapter, const GroupForm& form, const OperationSpec& operation) {
  std::string unit = "#include <" + form.header + ">\n";
  for (const auto& header : adapter.headers) unit += "#include <" + header + ">\n";
  unit += adapter.source;
  const std::string type = adapter.name + "<" + sample_arguments(form, operation) + ">";
  unit += "\ntemplate class " + type + ";\n__global__ void coop_adapter_check() {\n  __shared__ " + type +
          "::TempStorage storage;\n  " + type + " adapter(storage);\n  (void)adapter;\n}\n";
  return unit;
}

TEST(Adapters, EveryClassAdapterCompilesOnItsOwn) {
  const auto adapters = catalog_adapters();
  ASSERT_FALSE(adapters.empty()) << "the catalog names no class adapter";
  const testing::TempDir dir;
  const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  for (const auto& [adapter, form, operation] : adapters) {
    SCOPED_TRACE(adapter->name);
    // The class the catalog names is the one the text defines.
    const std::string unqualified = adapter->name.substr(adapter->name.rfind("::") + 2);
    EXPECT_TRUE(adapter->source.find("struct " + unqualified) != std::string::npos ||
                adapter->source.find("class " + unqualified) != std::string::npos);
    const auto source = dir.path() / (unqualified + ".cu");
    testing::write_text(source, adapter_unit(*adapter, *form, *operation));
    const testing::CommandResult built = testing::run_command(
        std::string(COOP_NVCC) + " -std=c++17 -arch=sm_90 -c -I" + shell_quoted(toolkit.cccl_include) + " " +
        shell_quoted(source.string()) + " -o " + shell_quoted((dir.path() / (unqualified + ".o")).string()));
    EXPECT_EQ(built.exit_code, 0) << built.output;
  }
}

}  // namespace
}  // namespace coop
