// Bundle: the engine's output for several plans compiled together: one LTO-IR
// image and, per plan, the symbol to call and its scratch layout.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coop/compile.hpp"
#include "coop/plan.hpp"

namespace coop {

struct Provider {
  std::string symbol;         // extern "C" wrapper: int symbol(void* ret, abi...)
  std::vector<AbiParam> abi;  // after the ret slot
  std::string cub_type;
  Layout scratch;             // one TempStorage; {0,0} when none is needed
  int scratch_instances = 0;  // TempStorages per block (one per group instance)
  Barrier reuse_barrier = Barrier::None;
  std::optional<AbiParam> result;                    // written through ret; nullopt: ret unused
  std::vector<ExternalFunction> external_functions;  // link their LTO-IR with the bundle's

  std::size_t scratch_bytes_per_block() const { return scratch.bytes * scratch_instances; }
};

// The declaration a CUDA C++ caller needs: `extern "C" __device__ int symbol(void*, ...);`
std::string declaration(const Provider& provider);

enum class CacheOutcome { Miss, MemoryHit, DiskHit, Disabled };

// Where one Engine::compile call spent its time, stage by stage, in seconds: a stage the call
// did not run is 0. Together they are the call's time but for a few bookkeeping microseconds,
// so that no stage (a wait above all) can hide in a total.
struct StageSeconds {
  double toolkit = 0;      // locating the toolkit: the first call of a process
  double emit = 0;         // the bundle's source (and its dump)
  double cache_read = 0;   // the key, the memory and disk lookups
  double nvrtc_load = 0;   // loading NVRTC: the first compile of a process
  double nvrtc_wait = 0;   // NVRTC busy elsewhere: the background PCH (NVRTC compiles one at a time)
  double nvrtc = 0;        // the compile itself (= compile_seconds)
  double cache_write = 0;  // storing the entry on disk
};
const char* to_string(CacheOutcome outcome);

struct Bundle {
  std::string arch;
  std::string source;
  std::string cache_key;
  std::vector<char> ltoir;
  std::vector<Provider> providers;  // one per input plan, same order
  CacheOutcome cache = CacheOutcome::Miss;
  double compile_seconds = 0;  // NVRTC time; 0 on a hit
  StageSeconds stages;
  bool used_pch = false;
  std::string dump_path;  // set when CUDA_COOP_SOURCE_DUMP_DIR is in force
};

}  // namespace coop
