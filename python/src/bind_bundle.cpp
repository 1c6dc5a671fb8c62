// Bundle: one LTO-IR image for several plans and, per plan, the provider to call.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"

namespace coop::python {
namespace {

// Identifiers rather than the engine's display text ("disabled (compiled)").
const char* cache_name(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::Miss:
      return "miss";
    case CacheOutcome::MemoryHit:
      return "memory_hit";
    case CacheOutcome::DiskHit:
      return "disk_hit";
    case CacheOutcome::Disabled:
      return "disabled";
  }
  return "?";
}

}  // namespace

void bind_bundle(nb::module_& module) {
  nb::class_<Provider>(module, "Provider", "The extern \"C\" wrapper of one plan and its scratch layout.")
      .def_ro("symbol", &Provider::symbol, "int symbol(void* ret, abi...)")
      .def_ro("abi", &Provider::abi, "The parameters after the ret slot.")
      .def_ro("result", &Provider::result, "The value written through ret; None if unused.")
      .def_ro("external_functions", &Provider::external_functions)
      .def_ro("cub_type", &Provider::cub_type)
      .def_prop_ro(
          "scratch_bytes", [](const Provider& provider) { return provider.scratch.bytes; },
          "sizeof one TempStorage; 0 when none is needed.")
      .def_prop_ro(
          "scratch_alignment", [](const Provider& provider) { return provider.scratch.alignment; },
          "alignof one TempStorage; 0 when none is needed.")
      .def_ro("scratch_instances", &Provider::scratch_instances, "TempStorages per block (one per group instance).")
      .def_prop_ro("scratch_bytes_per_block", &Provider::scratch_bytes_per_block)
      .def_prop_ro("reuse_barrier", [](const Provider& provider) { return barrier_name(provider.reuse_barrier); })
      .def(
          "declaration", [](const Provider& provider) { return declaration(provider); },
          "The CUDA C++ declaration a caller needs: extern \"C\" __device__ int symbol(void*, ...);")
      .def("__repr__", [](const Provider& provider) { return "<Provider " + provider.symbol + ">"; });

  nb::class_<Bundle>(module, "Bundle", "The providers of several plans, compiled together into one LTO-IR image.")
      .def_ro("arch", &Bundle::arch)
      .def_ro("source", &Bundle::source, "The generated CUDA C++ translation unit.")
      .def_ro("cache_key", &Bundle::cache_key)
      .def_prop_ro(
          "ltoir", [](const Bundle& bundle) { return nb::bytes(bundle.ltoir.data(), bundle.ltoir.size()); },
          "The LTO-IR image, a link input for nvJitLink.")
      .def_ro("providers", &Bundle::providers, "One per input plan, in the same order.")
      .def_prop_ro(
          "cache", [](const Bundle& bundle) { return cache_name(bundle.cache); },
          "\"miss\", \"memory_hit\", \"disk_hit\" or \"disabled\" (the disk cache is off; compiled).")
      .def_ro("compile_seconds", &Bundle::compile_seconds, "NVRTC time; 0 on a hit.")
      .def_ro("used_pch", &Bundle::used_pch)
      .def_prop_ro(
          "stages",
          [](const Bundle& bundle) {
            const StageSeconds& s = bundle.stages;
            nb::dict stages;
            stages["toolkit"] = s.toolkit;
            stages["emit"] = s.emit;
            stages["cache_read"] = s.cache_read;
            stages["nvrtc_load"] = s.nvrtc_load;
            stages["nvrtc_wait"] = s.nvrtc_wait;
            stages["nvrtc"] = s.nvrtc;
            stages["cache_write"] = s.cache_write;
            return stages;
          },
          "Seconds per stage of the compile call that made this bundle (toolkit, emit, cache_read, nvrtc_load, "
          "nvrtc_wait: NVRTC busy with the background PCH, nvrtc, cache_write); 0 for a stage it did not run.")
      .def_ro("dump_path", &Bundle::dump_path, "Where the source was dumped (CUDA_COOP_SOURCE_DUMP_DIR); \"\" if not.")
      .def("__repr__", [](const Bundle& bundle) {
        return "<Bundle " + bundle.arch + ", " + std::to_string(bundle.providers.size()) + " provider(s), " +
               cache_name(bundle.cache) + ">";
      });
}

}  // namespace coop::python
