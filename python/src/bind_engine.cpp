// Engine: plan, emit, compile (through the caches) and link. Everything that can
// take long (locating the toolkit, NVRTC, nvJitLink) runs without the GIL, so
// other Python threads keep going while a kernel's providers compile.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <optional>
#include <utility>

#include "bindings.hpp"

namespace coop::python {
namespace {

using namespace nb::literals;

LinkInputKind link_kind(const std::string& kind, std::size_t index) {
  if (kind == "ltoir") return LinkInputKind::LtoIr;
  if (kind == "cubin") return LinkInputKind::Cubin;
  if (kind == "ptx") return LinkInputKind::Ptx;
  if (kind == "fatbin") return LinkInputKind::Fatbin;
  if (kind == "object") return LinkInputKind::Object;
  reject(ErrorKind::InvalidArgument, "link", "inputs[" + std::to_string(index) + "] kind", "'" + kind + "'",
         "one of: ltoir, cubin, ptx, fatbin, object");
}

// Python's SIGINT handler only records a Ctrl-C, and the toolkit libraries may not replace it
// (engine/src/process_signals.hpp): one that came during a compile or a link is raised here, as
// KeyboardInterrupt, when the call returns. What it compiled is cached whole, so a retry is quick.
void raise_pending_interrupt() {
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

Bundle compile_bundle(Engine& engine, const std::vector<Plan>& plans, const std::string& arch) {
  std::optional<Bundle> bundle;
  {
    nb::gil_scoped_release release;
    bundle.emplace(engine.compile(plans, arch));
  }
  raise_pending_interrupt();
  return std::move(*bundle);
}

const Toolkit& located_toolkit(const Engine& engine) {
  nb::gil_scoped_release release;
  return engine.toolkit();
}

nb::bytes link_to_cubin(const Engine& engine, const std::vector<std::pair<std::string, nb::bytes>>& inputs,
                        const std::string& arch) {
  std::vector<LinkInput> link_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& [kind, bytes] = inputs[i];
    const char* data = bytes.c_str();
    link_inputs.push_back({link_kind(kind, i), std::vector<char>(data, data + bytes.size()),
                           "inputs[" + std::to_string(i) + "] (" + kind + ")"});
  }
  LinkResult result;
  {
    nb::gil_scoped_release release;
    result = coop::link(engine.toolkit(), link_inputs, arch);
  }
  raise_pending_interrupt();
  return nb::bytes(result.cubin.data(), result.cubin.size());
}

// Without the libraries' versions, which load them: what a disk cache hit needs to know.
std::map<std::string, std::string> toolkit_paths(const Toolkit& toolkit) {
  return {{"nvrtc_library", toolkit.nvrtc_library},
          {"nvjitlink_library", toolkit.nvjitlink_library},
          {"cuda_include", toolkit.cuda_include},
          {"cccl_include", toolkit.cccl_include},
          {"cccl_version", toolkit.cccl_version},
          {"header_digest", toolkit.header_digest},
          {"identity", toolkit.identity}};
}

std::map<std::string, std::string> toolkit_fields(const Toolkit& toolkit) {
  std::map<std::string, std::string> fields = toolkit_paths(toolkit);
  fields["nvrtc_version"] = toolkit.nvrtc_version();
  fields["nvjitlink_version"] = toolkit.nvjitlink_version();
  return fields;
}

// A dict rather than a bound class: the CLI prints it as JSON as it is.
nb::dict clear_cache(const Engine& engine) {
  CacheClearReport report;
  {
    nb::gil_scoped_release release;
    report = engine.disk_cache().clear();
  }
  nb::list failed;
  for (const CacheFailure& failure : report.failures) {
    nb::dict entry;
    entry["path"] = failure.path;
    entry["reason"] = failure.reason;
    failed.append(entry);
  }
  nb::dict result;
  result["directory"] = engine.disk_cache().config().directory;
  result["removed"] = report.removed;
  result["failed"] = failed;
  return result;
}

}  // namespace

void bind_engine(nb::module_& module) {
  module.def("max_shared_memory_per_block", &max_shared_memory_per_block, "arch"_a,
             "Bytes of shared memory one block may use on `arch` (\"sm_90\"), opt-in dynamic shared memory "
             "included; 48 KiB for an arch the engine does not know. Engine.compile refuses a call whose scratch "
             "exceeds it; a kernel's total scratch must fit too.");
  module.def(
      "load_note", [](const std::string& name) { return DiskCache(CacheConfig::from_environment()).load_note(name); },
      "name"_a,
      "The note `name` (lowercase letters, digits and '-') an earlier process left in the persistent cache "
      "(Engine.keep_note), signed as its entries are; None when there is none, the cache is off, or the note "
      "fails its check. Needs no engine: a note may say how to create one.");
  module.def("log_stages", &coop::log_stages,
             "The stages CUDA_COOP_LOG turns on (\"plan\", \"compile\", \"cache\"), read now; an unknown word warns "
             "once (CoopWarning) and is ignored. The engine's parser, so Python and C++ agree and warn once.");
  nb::class_<CacheStats>(module, "CacheStats", "The persistent provider cache.")
      .def_ro("entries", &CacheStats::entries)
      .def_ro("bytes", &CacheStats::bytes)
      .def_ro("directory", &CacheStats::directory)
      .def_ro("enabled", &CacheStats::enabled, "False when CUDA_COOP_ENABLE_CACHE=0.")
      .def("__repr__", [](const CacheStats& stats) {
        return "<CacheStats " + stats.directory + ": " + std::to_string(stats.entries) + " entries, " +
               std::to_string(stats.bytes) + " bytes" + (stats.enabled ? "" : ", disabled") + ">";
      });

  nb::class_<Engine>(module, "Engine",
                     "The pipeline: plan -> emit -> compile (memory and disk caches) -> Bundle; and link.\n\n"
                     "Configured from the environment when created (CUDA_COOP_ENABLE_CACHE, XDG_CACHE_HOME, "
                     "CUDA_COOP_SOURCE_DUMP_DIR, CUDA_COOP_CCCL_ROOT, CUDA_HOME, CUDA_COOP_PCH). The toolkit is "
                     "located on first use: planning needs none.")
      .def(
          "__init__",
          [](Engine* self, std::string backend, const std::vector<std::string>& wheel_roots,
             const std::map<std::string, std::string>& located) {
            EngineConfig config = EngineConfig::from_environment(std::move(backend));
            auto& roots = config.toolkit.wheel_roots;  // CUDA_COOP_WHEEL_ROOTS stays first: it is explicit
            roots.insert(roots.end(), wheel_roots.begin(), wheel_roots.end());
            ToolkitSearch& search = config.toolkit;
            // A CUDA_COOP_* variable naming a piece is more explicit than what the Python layer found.
            for (auto [field, key] : {std::pair{&search.nvrtc_library, "nvrtc_library"},
                                      {&search.nvjitlink_library, "nvjitlink_library"},
                                      {&search.cuda_include, "cuda_include"},
                                      {&search.cccl_root, "cccl_include"}}) {
              if (const auto it = located.find(key); field->empty() && it != located.end()) *field = it->second;
            }
            new (self) Engine(std::move(config));
          },
          "backend"_a = "numba_mlir", "wheel_roots"_a = std::vector<std::string>{},
          "located"_a = std::map<std::string, std::string>{},
          "`backend` names dumped sources (cuda_coop_<backend>_<hash>.cu); `wheel_roots` are site-packages/nvidia "
          "directories searched for NVRTC, nvJitLink and the CUDA and CCCL headers before /usr/local/cuda; "
          "`located` maps nvrtc_library, nvjitlink_library, cuda_include and cccl_include to the paths to use "
          "(cuda-pathfinder's answers), unless a CUDA_COOP_* variable names that piece.")
      .def_prop_ro("backend", [](const Engine& engine) { return engine.config().backend; })
      .def("plan", &Engine::plan, "facts"_a,
           "Validate one call against the catalog; raises EngineError naming the argument that is not allowed.")
      .def(
          "emit",
          [](const Engine& engine, const std::vector<Plan>& plans, const std::string& arch) {
            return engine.emit(plans, arch).text;
          },
          "plans"_a, "arch"_a, nb::call_guard<nb::gil_scoped_release>(),
          "The CUDA C++ translation unit that compile() would build for `arch` (\"sm_90\").")
      .def(
          "require_supported_arch",
          [](const Engine& engine, const std::string& arch, const std::string& call) {
            require_supported_arch(engine.toolkit(), arch, call);
          },
          "arch"_a, "call"_a, nb::call_guard<nb::gil_scoped_release>(),
          "Raises EngineError (InvalidArgument) naming `call` unless the loaded NVRTC compiles for `arch`.")
      .def("compile", &compile_bundle, "plans"_a, "arch"_a,
           "One NVRTC compile of all plans on a cache miss, none on a memory or disk hit. A Ctrl-C during it "
           "raises KeyboardInterrupt when it returns.")
      .def("link", &link_to_cubin, "inputs"_a, "arch"_a,
           "nvJitLink (kind, bytes) inputs into a cubin for `arch`; kind is ltoir, cubin, ptx, fatbin or object.")
      .def_prop_ro(
          "toolkit", [](const Engine& engine) { return toolkit_fields(located_toolkit(engine)); },
          "Where NVRTC, nvJitLink and the headers were found, their versions and the toolkit identity.")
      .def_prop_ro(
          "toolkit_paths", [](const Engine& engine) { return toolkit_paths(located_toolkit(engine)); },
          "As toolkit, without the versions of NVRTC and nvJitLink: reading them loads the libraries, which "
          "a process served by the disk cache never needs.")
      .def(
          "cache_stats", [](const Engine& engine) { return engine.disk_cache().stats(); },
          "Entries and bytes in the persistent cache, its directory, and whether it is enabled. Raises EngineError "
          "(kind \"Cache\") when the directory exists but cannot be listed.")
      .def("cache_clear", &clear_cache,
           "Remove every entry of the persistent cache it can: {\"directory\", \"removed\": count, \"failed\": "
           "[{\"path\", \"reason\"}]}. What could not be removed is listed, never raised.")
      .def("keep_note", &Engine::keep_note, "name"_a, "text"_a,
           "Leave a note (see load_note) in the persistent cache, now or, when its directory does not exist "
           "yet, with the first entry stored. Silent: a note only saves work.");
}

}  // namespace coop::python
