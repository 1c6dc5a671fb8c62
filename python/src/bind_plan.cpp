// Plan: the validated CUB specialization of one call and the ABI of its wrapper.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace coop::python {

const char* barrier_name(Barrier barrier) {
  switch (barrier) {
    case Barrier::None:
      return "none";
    case Barrier::Block:
      return "block";
    case Barrier::Warp:
      return "warp";
    case Barrier::Own:
      return "own";
  }
  return "?";
}

void bind_plan(nb::module_& module) {
  nb::class_<ExternalFunction>(module, "ExternalFunction", "A device function a provider calls but does not define.")
      .def_ro("symbol", &ExternalFunction::symbol)
      .def_ro("declaration", &ExternalFunction::declaration, "Its C++ declaration, which its compile must match.");
  nb::class_<AbiParam>(module, "AbiParam", "One parameter of a generated wrapper, after its leading `void* ret`.")
      .def_ro("name", &AbiParam::name)
      .def_prop_ro(
          "kind", [](const AbiParam& param) { return to_string(param.kind); },
          "\"pointer\" (passed as void*), \"value\", or the \"extent\" / \"stride\" (int64, in elements) of "
          "dimension `dimension` of the strided view `array`.")
      .def_ro("array", &AbiParam::array, "For an extent or stride: the array operand it describes.")
      .def_ro("dimension", &AbiParam::dimension, "For an extent or stride: the dimension; -1 otherwise.")
      .def_ro("cpp_type", &AbiParam::cpp_type, "The value's C++ type, or the pointee's for a pointer.")
      .def_ro("value_dtype", &AbiParam::value_dtype,
              "The dtype (NumPy name) a front end gives the value, or the pointee: \"int64\" for counts, offsets, "
              "extents and strides, \"int32\" for flags, \"uint8\" for bytes, the operand's element dtype for "
              "payload values (the call's dtype, or a named dtype such as ValueT).")
      .def("__repr__", [](const AbiParam& param) {
        return "<AbiParam " + param.name + ": " + param.cpp_type + (param.kind == AbiKind::Pointer ? "*" : "") + ">";
      });

  nb::class_<Plan>(module, "Plan", "The validated CUB specialization for one call.")
      .def_ro("facts", &Plan::facts)
      .def_prop_ro("operation", [](const Plan& plan) { return plan.operation->name; })
      .def_prop_ro("family", [](const Plan& plan) { return plan.operation->family; })
      .def_prop_ro(
          "method", [](const Plan& plan) { return plan.method; }, "The CUB member function called.")
      .def_ro("cub_type", &Plan::cub_type, "The full specialization, e.g. ::cub::BlockLoad<...>.")
      .def_prop_ro(
          "algorithm",
          [](const Plan& plan) -> std::optional<std::string> {
            if (plan.algorithm != nullptr) return plan.algorithm->name;
            return std::nullopt;
          },
          "The user-facing algorithm name; None for an operation without one.")
      .def_ro("template_arguments", &Plan::template_arguments, "(name, C++ value) in CUB's order.")
      .def_ro("headers", &Plan::headers)
      .def_ro("abi", &Plan::abi)
      .def_ro("result", &Plan::result, "The value written through ret (read it after the call); None if unused.")
      .def_ro("external_functions", &Plan::external_functions,
              "Functions the provider calls that another compile provides (user operators): link their LTO-IR.")
      .def_ro("needs_scratch", &Plan::needs_scratch)
      .def_ro("scratch_instances", &Plan::scratch_instances, "One TempStorage per group instance in the block.")
      .def_prop_ro(
          "reuse_barrier", [](const Plan& plan) { return barrier_name(plan.reuse_barrier); },
          "\"none\", \"block\" or \"warp\": the barrier before another consumer reuses this call's scratch.")
      .def_ro("key", &Plan::key, "Canonical text of everything that shapes the generated code.")
      .def_ro("digest", &Plan::digest, "SHA-256 of `key`, hex.")
      .def_prop_ro("tile_capacity", &Plan::tile_capacity, "Items one group instance moves.")
      .def_prop_ro("dtype", [](const Plan& plan) { return std::string(info(plan.facts.dtype).name); })
      .def_prop_ro("items_per_thread", [](const Plan& plan) { return plan.facts.items_per_thread; })
      .def_prop_ro("group_kind", [](const Plan& plan) { return to_string(plan.facts.group.kind); })
      .def("describe", &Plan::describe, "The plan as the CLI's `coop explain` prints it.")
      .def("__repr__", [](const Plan& plan) {
        return "<Plan " + plan.facts.call_name() + ": " + plan.cub_type + "::" + plan.operation->method + ">";
      });
}

}  // namespace coop::python
