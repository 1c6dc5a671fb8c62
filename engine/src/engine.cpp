#include "coop/engine.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "environment.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;

// Adds the seconds `work` takes to `stage`, and returns what it returns.
template <typename Work>
decltype(auto) timed(double& stage, Work&& work) {
  const auto start = std::chrono::steady_clock::now();
  struct Add {
    double& stage;
    std::chrono::steady_clock::time_point start;
    ~Add() { stage += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  } add{stage, start};
  return work();
}

bool log_enabled(const std::string& stage) {
  const std::vector<std::string> stages = log_stages();
  return std::find(stages.begin(), stages.end(), stage) != stages.end();
}

PchPolicy pch_from_environment(PchPolicy fallback) {
  constexpr std::pair<std::string_view, PchPolicy> kPolicies[] = {{"background", PchPolicy::Background},
                                                                  {"always", PchPolicy::Always},
                                                                  {"after_first", PchPolicy::AfterFirst},
                                                                  {"never", PchPolicy::Never}};
  std::string fallback_name;
  for (const auto& [name, policy] : kPolicies) {
    if (policy == fallback) fallback_name = name;
  }
  const std::string value =
      env::choice("CUDA_COOP_PCH", {"background", "always", "after_first", "never"}, fallback_name);
  for (const auto& [name, policy] : kPolicies) {
    if (value == name) return policy;
  }
  return fallback;
}

std::string source_name(const std::string& backend, const std::string& key) {
  return "cuda_coop_" + backend + "_" + key.substr(0, 16) + ".cu";
}

// Without overflow: an entry's layout may hold any number.
bool scratch_fits(std::size_t bytes, std::size_t instances, std::size_t limit) {
  return instances == 0 || bytes <= limit / instances;
}

// More scratch than a block may have compiles and links, and fails only at launch.
void require_scratch_fits(const Plan& plan, const Provider& provider, const std::string& arch) {
  const std::size_t limit = max_shared_memory_per_block(arch);
  if (scratch_fits(provider.scratch.bytes, provider.scratch_instances, limit)) return;
  reject(ErrorKind::InvalidArgument, plan.facts.call_name(), "scratch",
         std::to_string(provider.scratch_bytes_per_block()) + " bytes per block (" +
             std::to_string(provider.scratch_instances) + " x sizeof(" + plan.cub_type + "::TempStorage))",
         "at most " + std::to_string(limit) + " bytes (" + std::to_string(limit / 1024) +
             " KiB), the shared memory one block may use on " + arch +
             "; use fewer items per thread, a smaller block or an algorithm without scratch");
}

// A dump is a debugging aid: a directory that cannot take it costs the dump, never the compile.
std::string dump_source(const std::string& directory, const std::string& backend, const std::string& key,
                        const std::string& text) {
  const fs::path path = fs::path(directory) / source_name(backend, key);
  try {
    write_atomically(path, text);
    return path.string();
  } catch (const Error& error) {
    warn_once("CUDA_COOP_SOURCE_DUMP_DIR=" + directory,
              "CUDA_COOP_SOURCE_DUMP_DIR='" + directory + "' cannot take source dumps (" + error.what() +
                  "); expected a writable directory; compiling without dumps");
    return "";
  }
}

// Where a failed compile's source is kept when dumps are off; "" when no directory can take it.
std::string failure_path(const std::string& backend, const std::string& key, const std::string& cache_directory) {
  const fs::path directory = env::temp_directory(cache_directory);
  return directory.empty() ? "" : (directory / source_name(backend, key)).string();
}

// A MAC proves who wrote an entry, not that it belongs to these plans: only a bundle whose
// providers were built is ever stored, so an entry they cannot be built from is a bug's or
// a damaged disk's. "" when it fits; otherwise why not, completing "'<entry>' ...".
std::string misfit(const CachedCompile& compiled, const std::vector<Plan>& plans, const EmittedSource& source,
                   const std::string& arch) {
  if (compiled.layouts.size() != source.layout_probes.size()) {
    return "holds " + std::to_string(compiled.layouts.size()) + " layout(s) for " +
           std::to_string(source.layout_probes.size()) + " scratch specialization(s), so it is not this bundle's";
  }
  const std::size_t limit = max_shared_memory_per_block(arch);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const int probe = source.probe_of_plan[i];
    const Layout layout = probe < 0 ? Layout{} : compiled.layouts[probe];
    if (!plans[i].needs_scratch) continue;
    if (layout.bytes == 0) return "holds no scratch layout for " + plans[i].cub_type;
    if (!scratch_fits(layout.bytes, plans[i].scratch_instances, limit)) {
      return "holds a scratch layout of " + std::to_string(layout.bytes) + " bytes for " + plans[i].cub_type +
             ", more than the " + std::to_string(limit) + " bytes a block may use on " + arch +
             ", so it is not this bundle's (a bundle that does not fit is never stored)";
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> log_stages() {
  // traceback: the Python layer shows a cuda.coop error's internal frames too; progress: it says
  // which kernel's calls a bundle compiles, and how long a slow compile took.
  std::vector<std::string> stages =
      env::words("CUDA_COOP_LOG", {"plan", "compile", "cache", "progress", "traceback", "all"});
  if (std::find(stages.begin(), stages.end(), "all") != stages.end()) {
    return {"plan", "compile", "cache", "progress", "traceback"};
  }
  return stages;
}

const char* to_string(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::Miss:
      return "miss";
    case CacheOutcome::MemoryHit:
      return "memory hit";
    case CacheOutcome::DiskHit:
      return "disk hit";
    case CacheOutcome::Disabled:
      return "disabled (compiled)";
  }
  return "?";
}

EngineConfig EngineConfig::from_environment(std::string backend, PchPolicy pch) {
  EngineConfig config;
  config.backend = std::move(backend);
  env::warn_unknown_variables();
  config.toolkit = ToolkitSearch::from_environment();
  config.cache = CacheConfig::from_environment();
  config.pch = pch_from_environment(pch);
  config.source_dump_dir = env::text("CUDA_COOP_SOURCE_DUMP_DIR");
  return config;
}

struct Engine::Impl {
  EngineConfig config;
  DiskCache disk;
  MemoryCache memory;
  std::once_flag located;
  std::optional<Toolkit> toolkit;
  std::unique_ptr<Compiler> compiler;
  // Notes the cache directory did not exist yet to hold (the toolkit's header digest, the
  // Python layer's located toolkit): stored with the first entry.
  std::mutex note_mutex;
  std::vector<std::pair<std::string, std::string>> notes_after_the_first_entry;

  explicit Impl(EngineConfig c) : config(std::move(c)), disk(config.cache) {}

  // Located on first use: planning needs no toolkit.
  const Toolkit& require_toolkit() {
    std::call_once(located, [this] {
      const HeaderNotes notes{[this](const std::string& name) { return disk.load_note(name); },
                              [this](const std::string& name, const std::string& text) { keep_note(name, text); }};
      toolkit = Toolkit::locate(config.toolkit, &notes);
      compiler = std::make_unique<Compiler>(*toolkit, config.pch);
    });
    return *toolkit;
  }

  void keep_note(const std::string& name, const std::string& text) {
    const std::lock_guard lock(note_mutex);
    if (!disk.store_note(name, text)) notes_after_the_first_entry.emplace_back(name, text);
  }

  // A failed compile always leaves its source where the error message says, even
  // when dumps are off, so the user can read the line NVRTC complains about.
  CompileResult compile_keeping_failures(const EmittedSource& source, const std::string& key, const std::string& arch,
                                         const Bundle& bundle) {
    const bool dumped = !bundle.dump_path.empty();
    const std::string path = dumped ? bundle.dump_path : failure_path(config.backend, key, config.cache.directory);
    try {
      return compiler->compile({source.text, arch, source.layout_probes, path, source.nvrtc_options});
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::ProviderCompile && !dumped && !path.empty()) keep_failed_source(path, source);
      throw;
    }
  }

  // Best effort: the compile error is what the user must see, not a second failure behind it.
  static void keep_failed_source(const std::string& path, const EmittedSource& source) {
    try {
      write_atomically(path, source.text);
    } catch (const Error& error) {
      warn(std::string("the source of the failed compile could not be kept: ") + error.what());
    }
  }

  // A disk entry is used only when the plans' providers can be built from it.
  std::optional<CachedCompile> disk_hit(const std::string& key, const std::vector<Plan>& plans,
                                        const EmittedSource& source, const std::string& arch) const {
    std::optional<CachedCompile> hit = disk.load(key);
    if (!hit) return hit;
    const std::string fault = misfit(*hit, plans, source, arch);
    if (fault.empty()) return hit;
    warn("provider cache: '" + disk.entry_path(key) + "' " + fault + "; compiling instead (the compile replaces it)");
    return std::nullopt;
  }

  // The bundle of `plans` from a memory hit, a disk hit that fits them, or a compile. A
  // compile is remembered and stored only once the providers are built from it, so a call
  // that is refused (too much scratch) leaves nothing a later run would mistake for a hit.
  // `stages` gathers its time (a retry with the full headers adds to the first attempt's).
  Bundle bundle_of(const std::vector<Plan>& plans, const EmittedSource& source, const std::string& arch,
                   StageSeconds& stages) {
    Bundle bundle;
    bundle.arch = arch;
    bundle.source = source.text;
    bundle.cache_key = timed(stages.cache_read, [&] {
      return cache_key(source.text, compiler->options(arch, false), arch, require_toolkit().identity);
    });
    const std::string& key = bundle.cache_key;
    if (!config.source_dump_dir.empty()) {
      bundle.dump_path =
          timed(stages.emit, [&] { return dump_source(config.source_dump_dir, config.backend, key, source.text); });
    }
    if (auto hit = timed(stages.cache_read, [&] { return memory.load(key); })) {
      bundle.cache = CacheOutcome::MemoryHit;
      attach(bundle, plans, source, *hit);
      return bundle;
    }
    if (auto hit = timed(stages.cache_read, [&] { return disk_hit(key, plans, source, arch); })) {
      bundle.cache = CacheOutcome::DiskHit;
      attach(bundle, plans, source, *hit);
      memory.store(key, *hit);
      return bundle;
    }
    const CompileResult result = compile_keeping_failures(source, key, arch, bundle);
    stages.nvrtc_load += result.load_seconds;
    stages.nvrtc_wait += result.wait_seconds;
    stages.nvrtc += result.seconds;
    bundle.cache = disk.config().enabled ? CacheOutcome::Miss : CacheOutcome::Disabled;
    bundle.compile_seconds = result.seconds;
    bundle.used_pch = result.used_pch;
    const CachedCompile compiled{result.ltoir, result.layouts};
    attach(bundle, plans, source, compiled);
    memory.store(key, compiled);
    // warns, never throws: a cache that cannot store costs the next process a compile
    timed(stages.cache_write, [&] {
      disk.store(key, compiled);
      const std::lock_guard lock(note_mutex);
      std::erase_if(notes_after_the_first_entry,
                    [&](const auto& note) { return disk.store_note(note.first, note.second); });
    });
    return bundle;
  }

  // Fills the bundle's LTO-IR and providers; throws the user's error for a call that does not fit.
  static void attach(Bundle& bundle, const std::vector<Plan>& plans, const EmittedSource& source,
                     const CachedCompile& compiled) {
    if (compiled.layouts.size() != source.layout_probes.size()) {
      throw Error(ErrorKind::ProviderCompile, "compile: NVRTC returned " + std::to_string(compiled.layouts.size()) +
                                                  " layouts for " + std::to_string(source.layout_probes.size()) +
                                                  " probes");
    }
    bundle.ltoir = compiled.ltoir;
    bundle.providers.clear();
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const Plan& plan = plans[i];
      const int probe = source.probe_of_plan[i];
      const Layout layout = probe < 0 ? Layout{} : compiled.layouts[probe];  // one layout per distinct probe
      if (plan.needs_scratch && (layout.bytes == 0 || layout.alignment == 0)) {
        throw Error(ErrorKind::ProviderCompile, "compile: no scratch layout came back for " + plan.cub_type);
      }
      bundle.providers.push_back({source.symbols[i], plan.abi, plan.cub_type, layout, plan.scratch_instances,
                                  plan.reuse_barrier, plan.result, plan.external_functions});
      require_scratch_fits(plan, bundle.providers.back(), bundle.arch);
    }
  }
};

Engine::Engine(EngineConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Engine::~Engine() = default;

Plan Engine::plan(const CallFacts& facts) const {
  Plan result = coop::plan(facts);
  if (log_enabled("plan")) std::cerr << "[cuda.coop plan]\n" << result.describe();
  return result;
}

EmittedSource Engine::emit(const std::vector<Plan>& plans, const std::string& arch) const {
  parse_arch(arch, "compile");
  return coop::emit(plans, {impl_->require_toolkit().identity, arch});
}

namespace {

// A class a later CCCL brought (cub::WarpReduceBatched) is refused, naming the release that has
// it, where the CCCL in use lacks its header: NVRTC would only say the header is missing.
void require_class_in_cccl(const Plan& plan, const Toolkit& toolkit) {
  if (plan.form->since_cccl.empty() || std::filesystem::exists(fs::path(toolkit.cccl_include) / plan.form->header))
    return;
  reject(ErrorKind::UnsupportedOperation, plan.facts.call_name(), "operation", "'" + plan.facts.operation + "'",
         "a CCCL that has " + plan.form->cub_class + " (" + plan.form->header + ": CCCL " + plan.form->since_cccl +
             " or newer); this one is CCCL " + toolkit.cccl_version + " at " + toolkit.cccl_include +
             ". Point CUDA_COOP_CCCL_ROOT at a newer CCCL's headers (the directory holding cub/), e.g. those of "
             "the cuda-cccl wheel");
}

}  // namespace

Bundle Engine::compile(const std::vector<Plan>& plans, const std::string& arch) {
  if (plans.empty()) reject(ErrorKind::InvalidArgument, "compile", "plans", "an empty list", "at least one plan");
  parse_arch(arch, "compile");
  StageSeconds stages;
  const Toolkit& toolkit = timed(stages.toolkit, [&]() -> const Toolkit& { return impl_->require_toolkit(); });
  for (const Plan& plan : plans) require_class_in_cccl(plan, toolkit);
  EmittedSource source = timed(stages.emit, [&] { return coop::emit(plans, {toolkit.identity, arch}); });
  Bundle bundle;
  try {
    bundle = impl_->bundle_of(plans, source, arch, stages);
  } catch (const Error& error) {
    if (error.kind() != ErrorKind::ProviderCompile) throw;
    // A CCCL whose headers need what the trimmed source left out: the full headers cost a
    // slower compile, not a failure. A real error fails again, and is the one reported.
    source = timed(stages.emit, [&] { return coop::emit(plans, {toolkit.identity, arch, /*trim_headers=*/false}); });
    bundle = impl_->bundle_of(plans, source, arch, stages);
    warn_once("untrimmed headers " + toolkit.identity,
              "the provider source with its unused CCCL headers left out did not compile with these headers (" +
                  toolkit.cccl_include + "); it compiled with every header, which is slower");
  }
  if (log_enabled("compile") || log_enabled("cache")) {
    std::cerr << "[cuda.coop compile] " << plans.size() << " plan(s), key " << bundle.cache_key.substr(0, 16) << ", "
              << to_string(bundle.cache) << ", " << bundle.compile_seconds << " s" << (bundle.used_pch ? " (pch)" : "")
              << (stages.nvrtc_wait > 0.001 ? ", after " + std::to_string(stages.nvrtc_wait) + " s waiting for NVRTC"
                                            : "")
              << "\n";
  }
  bundle.stages = stages;
  return bundle;
}

const Toolkit& Engine::toolkit() const { return impl_->require_toolkit(); }
const DiskCache& Engine::disk_cache() const { return impl_->disk; }
void Engine::keep_note(const std::string& name, const std::string& text) const { impl_->keep_note(name, text); }
const EngineConfig& Engine::config() const { return impl_->config; }

}  // namespace coop
