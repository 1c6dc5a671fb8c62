// The engine's pipeline in one place: plan -> emit -> compile (through the
// caches) -> Bundle. This header is the library's public API; the CLI, the tests
// and the Python extension use nothing else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "coop/bundle.hpp"
#include "coop/cache.hpp"
#include "coop/call_facts.hpp"
#include "coop/compile.hpp"
#include "coop/emit.hpp"
#include "coop/error.hpp"
#include "coop/link.hpp"
#include "coop/plan.hpp"
#include "coop/target.hpp"
#include "coop/toolkit.hpp"
#include "coop/warning.hpp"

namespace coop {

struct EngineConfig {
  std::string backend = "cli";  // names dumped sources: cuda_coop_<backend>_<hash>.cu
  ToolkitSearch toolkit;
  CacheConfig cache;
  PchPolicy pch = PchPolicy::Always;
  std::string source_dump_dir;  // CUDA_COOP_SOURCE_DUMP_DIR; "" disables dumps

  // `pch`: the policy when CUDA_COOP_PCH is unset (a tool that compiles once and exits has no
  // use for a PCH, and would pay for creating it).
  static EngineConfig from_environment(std::string backend, PchPolicy pch = PchPolicy::Always);
};

// The stages CUDA_COOP_LOG turns on, from "plan", "compile" and "cache" ("all" is every
// one), read anew on each call. Words it does not know warn once and are ignored. The
// Python layer asks here too, so the variable has one parser.
std::vector<std::string> log_stages();

class Engine {
 public:
  explicit Engine(EngineConfig config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Plan plan(const CallFacts& facts) const;
  EmittedSource emit(const std::vector<Plan>& plans, const std::string& arch) const;
  // One NVRTC compile on a miss, none on a memory or disk hit.
  Bundle compile(const std::vector<Plan>& plans, const std::string& arch);

  const Toolkit& toolkit() const;
  const DiskCache& disk_cache() const;
  // Stores a note in the disk cache (DiskCache::store_note) now, or with the first entry when
  // the cache directory does not exist yet.
  void keep_note(const std::string& name, const std::string& text) const;
  const EngineConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coop
