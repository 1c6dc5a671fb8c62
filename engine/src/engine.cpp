#include "coop/engine.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>

namespace coop {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// CUDA_COOP_LOG=plan,compile,cache (or "all") prints what each stage did.
bool log_enabled(const std::string& stage) {
  const std::string stages = "," + environment("CUDA_COOP_LOG") + ",";
  return stages.find("," + stage + ",") != std::string::npos || stages.find(",all,") != std::string::npos;
}

PchPolicy pch_from_environment() {
  const std::string value = environment("CUDA_COOP_PCH");
  if (value == "never") return PchPolicy::Never;
  if (value == "after_first") return PchPolicy::AfterFirst;
  return PchPolicy::Always;
}

std::string dump_source(const std::string& directory, const std::string& backend, const std::string& key,
                        const std::string& text) {
  const std::filesystem::path path =
      std::filesystem::path(directory) / ("cuda_coop_" + backend + "_" + key.substr(0, 16) + ".cu");
  write_atomically(path, text);
  return path.string();
}

// More scratch than a block may have compiles and links, and fails only at launch.
void require_scratch_fits(const Plan& plan, const Provider& provider, const std::string& arch) {
  const std::size_t limit = max_shared_memory_per_block(arch);
  const std::size_t bytes = provider.scratch_bytes_per_block();
  if (bytes <= limit) return;
  reject(ErrorKind::InvalidArgument, plan.facts.call_name(), "scratch",
         std::to_string(bytes) + " bytes per block (" + std::to_string(provider.scratch_instances) + " x sizeof(" +
             plan.cub_type + "::TempStorage))",
         "at most " + std::to_string(limit) + " bytes (" + std::to_string(limit / 1024) +
             " KiB), the shared memory one block may use on " + arch +
             "; use fewer items per thread, a smaller block or an algorithm without scratch");
}

std::string failure_path(const std::string& backend, const std::string& key) {
  return (std::filesystem::temp_directory_path() / ("cuda_coop_" + backend + "_" + key.substr(0, 16) + ".cu")).string();
}

}  // namespace

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

EngineConfig EngineConfig::from_environment(std::string backend) {
  EngineConfig config;
  config.backend = std::move(backend);
  config.toolkit = ToolkitSearch::from_environment();
  config.cache = CacheConfig::from_environment();
  config.pch = pch_from_environment();
  config.source_dump_dir = environment("CUDA_COOP_SOURCE_DUMP_DIR");
  return config;
}

struct Engine::Impl {
  EngineConfig config;
  DiskCache disk;
  MemoryCache memory;
  std::once_flag located;
  std::optional<Toolkit> toolkit;
  std::unique_ptr<Compiler> compiler;

  explicit Impl(EngineConfig c) : config(std::move(c)), disk(config.cache) {}

  // Located on first use: planning needs no toolkit.
  const Toolkit& require_toolkit() {
    std::call_once(located, [this] {
      toolkit = Toolkit::locate(config.toolkit);
      compiler = std::make_unique<Compiler>(*toolkit, config.pch);
    });
    return *toolkit;
  }

  // A failed compile always leaves its source where the error message says, even
  // when dumps are off, so the user can read the line NVRTC complains about.
  CompileResult compile_keeping_failures(const EmittedSource& source, const std::string& key, const std::string& arch,
                                         const Bundle& bundle) {
    const bool dumped = !bundle.dump_path.empty();
    const std::string path = dumped ? bundle.dump_path : failure_path(config.backend, key);
    try {
      return compiler->compile({source.text, arch, source.layout_probes, path});
    } catch (const Error& error) {
      if (error.kind() == ErrorKind::ProviderCompile && !dumped) {
        dump_source(std::filesystem::path(path).parent_path().string(), config.backend, key, source.text);
      }
      throw;
    }
  }

  CachedCompile compile_or_load(const EmittedSource& source, const std::string& key, const std::string& arch,
                                Bundle& bundle) {
    if (auto hit = memory.load(key)) {
      bundle.cache = CacheOutcome::MemoryHit;
      return *hit;
    }
    if (auto hit = disk.load(key)) {
      bundle.cache = CacheOutcome::DiskHit;
      memory.store(key, *hit);
      return *hit;
    }
    const CompileResult result = compile_keeping_failures(source, key, arch, bundle);
    bundle.cache = disk.config().enabled ? CacheOutcome::Miss : CacheOutcome::Disabled;
    bundle.compile_seconds = result.seconds;
    bundle.used_pch = result.used_pch;
    CachedCompile compiled{result.ltoir, result.layouts};
    memory.store(key, compiled);
    try {
      disk.store(key, compiled);
    } catch (const Error& error) {
      // A cache that cannot be written costs the next process a compile, nothing more.
      warn(error.what());
    }
    return compiled;
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

Bundle Engine::compile(const std::vector<Plan>& plans, const std::string& arch) {
  if (plans.empty()) reject(ErrorKind::InvalidArgument, "compile", "plans", "an empty list", "at least one plan");
  const EmittedSource source = emit(plans, arch);
  const Toolkit& toolkit = impl_->require_toolkit();

  Bundle bundle;
  bundle.arch = arch;
  bundle.source = source.text;
  bundle.cache_key = cache_key(source.text, impl_->compiler->options(arch, false), arch, toolkit.identity);
  if (!impl_->config.source_dump_dir.empty()) {
    bundle.dump_path = dump_source(impl_->config.source_dump_dir, impl_->config.backend, bundle.cache_key, source.text);
  }
  CachedCompile compiled = impl_->compile_or_load(source, bundle.cache_key, arch, bundle);
  bundle.ltoir = std::move(compiled.ltoir);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Plan& plan = plans[i];
    const Layout layout = compiled.layouts.at(i);
    if (plan.needs_scratch && (layout.bytes == 0 || layout.alignment == 0)) {
      throw Error(ErrorKind::ProviderCompile, "compile: no scratch layout came back for " + plan.cub_type);
    }
    bundle.providers.push_back({source.symbols[i], plan.abi, plan.cub_type, layout, plan.scratch_instances,
                                plan.reuse_barrier, plan.result, plan.external_functions});
    require_scratch_fits(plan, bundle.providers.back(), arch);
  }
  if (log_enabled("compile") || log_enabled("cache")) {
    std::cerr << "[cuda.coop compile] " << plans.size() << " plan(s), key " << bundle.cache_key.substr(0, 16) << ", "
              << to_string(bundle.cache) << ", " << bundle.compile_seconds << " s" << (bundle.used_pch ? " (pch)" : "")
              << "\n";
  }
  return bundle;
}

const Toolkit& Engine::toolkit() const { return impl_->require_toolkit(); }
const DiskCache& Engine::disk_cache() const { return impl_->disk; }
const EngineConfig& Engine::config() const { return impl_->config; }

}  // namespace coop
