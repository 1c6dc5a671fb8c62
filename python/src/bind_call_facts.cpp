// The engine's input: groups, option bindings and CallFacts.
#include <nanobind/operators.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace coop::python {
namespace {

using namespace nb::literals;

const char* binding_name(Binding binding) {
  switch (binding) {
    case Binding::Omitted:
      return "omitted";
    case Binding::Static:
      return "static";
    case Binding::Runtime:
      return "runtime";
  }
  return "?";
}

// A launch shape as Python holds it: (x,), (x, y) or (x, y, z).
Dim3 to_dim3(const std::vector<int>& shape, const std::string& call) {
  if (shape.empty() || shape.size() > 3) {
    std::string text;
    for (const int extent : shape) text += (text.empty() ? "" : ",") + std::to_string(extent);
    reject(ErrorKind::InvalidGroup, call, "block", "(" + text + ")", "1 to 3 dimensions (x[, y[, z]])");
  }
  Dim3 block;
  block.x = shape[0];
  if (shape.size() > 1) block.y = shape[1];
  if (shape.size() > 2) block.z = shape[2];
  return block;
}

DType dtype_named(const CallFacts& facts, const std::string& argument, const std::string& name) {
  const auto parsed = parse_dtype(name);
  if (!parsed) reject(ErrorKind::InvalidArgument, facts.call_name(), argument, "'" + name + "'", dtype_names());
  return *parsed;
}

// The fields Python gives by name (dtypes by their NumPy names, the payload's shape as a word), parsed.
CallFacts with_names_parsed(CallFacts facts, const std::string& dtype, const std::string& payload,
                            const std::map<std::string, std::string>& dtypes) {
  facts.dtype = dtype_named(facts, "dtype", dtype);
  if (payload != "array" && payload != "scalar") {
    reject(ErrorKind::InvalidArgument, facts.call_name(), "payload", "'" + payload + "'", "'array' or 'scalar'");
  }
  facts.payload = payload == "scalar" ? PayloadKind::Scalar : PayloadKind::Array;
  for (const auto& [name, named] : dtypes) facts.dtypes[name] = dtype_named(facts, "dtypes['" + name + "']", named);
  return facts;
}

std::map<std::string, std::string> dtype_names_of(const std::map<std::string, DType>& dtypes) {
  std::map<std::string, std::string> names;
  for (const auto& [name, dtype] : dtypes) names[name] = std::string(info(dtype).name);
  return names;
}

std::string repr(const OptionBinding& option) {
  switch (option.binding) {
    case Binding::Omitted:
      return "OptionBinding.omitted()";
    case Binding::Runtime:
      return "OptionBinding.runtime()";
    case Binding::Static:
      return "OptionBinding.fixed(" + nb::cast<std::string>(nb::repr(nb::str(option.value.c_str()))) + ")";
  }
  return "OptionBinding(?)";
}

}  // namespace

void bind_call_facts(nb::module_& module) {
  nb::class_<Group>(module, "Group",
                    "Which threads cooperate: a block, logical warps or groups of warps inside a block.")
      .def_prop_ro(
          "kind", [](const Group& group) { return to_string(group.kind); },
          "\"block\", \"warp\", \"warps\" or \"cluster\".")
      .def_prop_ro(
          "block", [](const Group& group) { return std::make_tuple(group.block.x, group.block.y, group.block.z); },
          "The launch's block shape (x, y, z).")
      .def_prop_ro(
          "width",
          [](const Group& group) -> std::optional<int> {
            if (group.kind != GroupKind::Block) return group.width;
            return std::nullopt;
          },
          "Threads of one group (lanes per logical warp, 32 x warps per warps group, a cluster's); None for a block.")
      .def_prop_ro("threads", &Group::threads, "Threads cooperating in one instance of the group.")
      .def_prop_ro("instances", &Group::instances, "Group instances in one block.")
      .def(nb::self == nb::self)
      .def("__repr__", &Group::describe);

  module.def(
      "block",
      [](int x, int y, int z) {
        return Group::this_block({x, y, z});
      },
      "x"_a, "y"_a = 1, "z"_a = 1,
      "The thread block of shape (x, y, z), threads ranked x-major. Validated when planned.");
  module.def(
      "warp", [](const std::vector<int>& block, int width) { return Group::this_warp(to_dim3(block, "warp"), width); },
      "block"_a, "width"_a = kWarpThreads,
      "Logical warps of `width` consecutive lanes in a block of shape `block` ((x,), (x, y) or (x, y, z)).");
  module.def(
      "warps", [](const std::vector<int>& block, int warps) { return Group::warps_of(to_dim3(block, "warps"), warps); },
      "block"_a, "warps"_a,
      "Groups of `warps` consecutive warps in a block of shape `block`; warps past the last whole group are in none.");
  module.def(
      "parse_group",
      [](const std::string& group, const std::optional<std::string>& block, const std::string& call) {
        return parse_group_flags(group, block, call);
      },
      "group"_a, "block"_a = nb::none(), "call"_a = "coop explain",
      "A command line's --group and --block (block:X[,Y[,Z]], warp, warp:N, warps:N, cluster:N), read as the coop "
      "tool reads them.");
  module.attr("max_warps_groups") = kMaxWarpsGroups;      // groups of several warps in a block: named barriers
  module.attr("max_cluster_blocks") = kMaxClusterBlocks;  // the portable cluster sizes
  module.def(
      "cluster",
      [](const std::vector<int>& block, int blocks) { return Group::cluster_of(to_dim3(block, "cluster"), blocks); },
      "block"_a, "blocks"_a, "The thread block cluster of `blocks` blocks of shape `block` (sm_90+).");

  module.def(
      "passes_by_pointer",
      [](const std::string& dtype) {
        const auto parsed = parse_dtype(dtype);
        if (!parsed) reject(ErrorKind::InvalidArgument, "passes_by_pointer", "dtype", "'" + dtype + "'", dtype_names());
        return passes_by_pointer(*parsed);
      },
      "dtype"_a,
      "Whether values of `dtype` cross the engine's ABI, and a user function's, by pointer (16-bit floats, complex, "
      "records).");
  module.def(
      "at_least_32_bits",
      [](const std::string& dtype) {
        const auto parsed = parse_dtype(dtype);
        if (!parsed) reject(ErrorKind::InvalidArgument, "at_least_32_bits", "dtype", "'" + dtype + "'", dtype_names());
        return std::string(info(at_least_32_bits(*parsed)).name);
      },
      "dtype"_a,
      "`dtype` widened to 32 bits within its signedness where it is a narrower integer (int8 -> int32), else itself: "
      "what a dtype option following another counts in.");
  module.def(
      "record_dtype",
      [](const std::vector<std::string>& fields) -> std::optional<std::string> {
        std::vector<DType> parsed;
        for (const auto& field : fields) {
          const auto dtype = parse_dtype(field);
          if (!dtype) return std::nullopt;
          parsed.push_back(*dtype);
        }
        const auto record = record_dtype(parsed);
        return record ? std::optional<std::string>(info(*record).name) : std::nullopt;
      },
      "fields"_a,
      "The name of the record of these scalar dtypes (\"record(int32,float32)\"), or None where they make none (no "
      "field, more than 16, or a field that is no scalar dtype).");
  module.def(
      "record_layout",
      [](const std::string& dtype) -> std::optional<nb::dict> {
        const auto parsed = parse_dtype(dtype);
        const RecordLayout* layout = parsed ? record_layout(*parsed) : nullptr;
        if (layout == nullptr) return std::nullopt;
        nb::list fields;
        for (const DType field : layout->fields) fields.append(std::string(info(field).name));
        nb::dict result;
        result["fields"] = fields;
        result["offsets"] = layout->offsets;
        result["size"] = layout->size;
        result["alignment"] = layout->alignment;
        return result;
      },
      "dtype"_a,
      "A record's layout as C++ lays it out and the generated provider checks: {fields, offsets, size, alignment}; "
      "None for a scalar dtype.");

  nb::class_<OptionBinding>(module, "OptionBinding",
                            "How an optional argument reaches the call: omitted, a static value, or a runtime operand.")
      .def_static("omitted", &OptionBinding::omitted, "Not given: selects the CUB overload without it.")
      .def_static("runtime", &OptionBinding::runtime, "An operand of the generated device call.")
      .def_static("fixed", &OptionBinding::fixed, "value"_a, "A compile-time value, as its literal text.")
      .def_prop_ro(
          "binding", [](const OptionBinding& option) { return binding_name(option.binding); },
          "\"omitted\", \"static\" or \"runtime\".")
      .def_prop_ro(
          "value",
          [](const OptionBinding& option) -> std::optional<std::string> {
            if (option.binding == Binding::Static) return option.value;
            return std::nullopt;
          },
          "The literal of a static binding; None otherwise.")
      .def(nb::self == nb::self)
      .def("__repr__", [](const OptionBinding& option) { return repr(option); });

  nb::class_<CallFacts>(module, "CallFacts", "What the front end knows about one primitive call.")
      .def(
          "__init__",
          [](CallFacts* self, std::string operation, Group group, const std::string& dtype, int items_per_thread,
             std::map<std::string, OptionBinding> options, std::string where, const std::string& payload,
             std::map<std::string, int> strided_views, const std::map<std::string, std::string>& dtypes,
             std::map<std::string, int> extents) {
            CallFacts facts;
            facts.operation = std::move(operation);
            facts.group = group;
            facts.items_per_thread = items_per_thread;
            facts.options = std::move(options);
            facts.where = std::move(where);
            facts.strided_views = std::move(strided_views);
            facts.extents = std::move(extents);
            new (self) CallFacts(with_names_parsed(std::move(facts), dtype, payload, dtypes));
          },
          "operation"_a, "group"_a, "dtype"_a, "items_per_thread"_a,
          "options"_a = std::map<std::string, OptionBinding>{}, "where"_a = "", "payload"_a = "array",
          "strided_views"_a = std::map<std::string, int>{}, "dtypes"_a = std::map<std::string, std::string>{},
          "extents"_a = std::map<std::string, int>{},
          "`options` maps option names to bindings (absent means omitted); `where` names the user's "
          "function, file and line for messages; `payload` is \"array\" (a ThreadData) or \"scalar\" (one value "
          "per thread); `strided_views` maps a memory operand that is a strided N-D view to its dimensions; "
          "`dtypes` and `extents` are the named facts the catalog's type expressions read (an operand's or "
          "option's named_dtype / named_extent): the dtype of the array passed for it (\"ValueT\": \"float16\") "
          "and its length (\"bins\": 256).")
      .def_ro("strided_views", &CallFacts::strided_views)
      .def_prop_ro(
          "dtypes", [](const CallFacts& facts) { return dtype_names_of(facts.dtypes); },
          "Named dtypes beyond the payload's: type name (\"ValueT\") -> dtype name.")
      .def_ro("extents", &CallFacts::extents, "Named extents read from array lengths: name (\"bins\") -> length.")
      .def_prop_ro("payload", [](const CallFacts& facts) { return std::string(to_string(facts.payload)); })
      .def_ro("operation", &CallFacts::operation)
      .def_ro("group", &CallFacts::group)
      .def_prop_ro("dtype", [](const CallFacts& facts) { return std::string(info(facts.dtype).name); })
      .def_ro("items_per_thread", &CallFacts::items_per_thread)
      .def_ro("options", &CallFacts::options)
      .def_ro("where", &CallFacts::where)
      .def("call_name", &CallFacts::call_name, "\"load\" or \"load (copy_tile, kernel.py:12)\".")
      .def("__repr__", [](const CallFacts& facts) {
        return "<CallFacts " + facts.call_name() + ": " + facts.group.describe() + ", " +
               std::string(info(facts.dtype).name) + " x " + std::to_string(facts.items_per_thread) + ">";
      });
}

}  // namespace coop::python
