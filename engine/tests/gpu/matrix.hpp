// What the GPU test covers: one Config is a load followed by a store of the same
// algorithm, group, dtype and items per thread, in one test kernel. Configs are
// grouped into batches (one engine bundle, one nvcc call, one cubin each). The
// enumeration is deterministic, so the build workers and the runner agree on
// every index without exchanging anything but files named after them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coop/call_facts.hpp"

namespace coop::gpu_test {

// How much of each tile the calls move, and how they are told.
enum class TileCase {
  Full,            // no options: the full-tile overloads
  RuntimePartial,  // valid_items RUNTIME (a different value per group instance), oob_default RUNTIME
  StaticPartial,   // valid_items STATIC, oob_default STATIC
  RuntimeOffset,   // offset RUNTIME = the block's tile offset, valid_items RUNTIME (full tiles but the last block)
  Unaligned,       // no options, every tile one element past an aligned address (no CUB vector fits)
};
const char* to_string(TileCase tile_case);

struct Config {
  int id = 0;  // names the kernel: coop_gpu_test_<id>
  GroupKind kind = GroupKind::Block;
  std::string algorithm;
  DType dtype = DType::Int32;
  Dim3 block;
  int width = 32;  // lanes per logical warp (warp groups)
  int items = 1;
  TileCase tile_case = TileCase::Full;
  int grid = 4;  // blocks launched

  Group group() const;
  int block_threads() const { return static_cast<int>(block.count()); }
  int group_threads() const { return kind == GroupKind::Block ? block_threads() : width; }
  int instances() const { return block_threads() / group_threads(); }  // groups per block
  long long group_tile() const { return 1LL * group_threads() * items; }
  long long block_tile() const { return 1LL * block_threads() * items; }
  long long elements() const { return block_tile() * grid; }                    // in all tiles
  long long shift() const { return tile_case == TileCase::Unaligned ? 1 : 0; }  // elements before the first tile
  bool striped() const { return algorithm == "striped"; }  // else blocked, for load and store alike
  bool has_valid_items() const { return tile_case != TileCase::Full && tile_case != TileCase::Unaligned; }
  bool has_oob_default() const { return tile_case == TileCase::RuntimePartial || tile_case == TileCase::StaticPartial; }
  bool has_offset() const { return tile_case == TileCase::RuntimeOffset; }
  std::string kernel_name() const { return "coop_gpu_test_" + std::to_string(id); }
  std::string describe() const;  // "block(32,4,1) direct float16 x7 runtime-partial"
};

struct Batch {
  int index = 0;
  std::string title;  // "block direct float16", "warp(8) transpose int64"
  std::vector<Config> configs;
};

// Every batch, in a fixed order.
std::vector<Batch> test_batches();

// The calls a config makes (facts for coop::Engine::plan).
CallFacts load_facts(const Config& config);
CallFacts store_facts(const Config& config);

// valid_items per group instance, index block * instances + group: what the
// kernel reads from its valid list. Every entry is the group tile where the config
// has no valid_items.
std::vector<std::int64_t> valid_items_per_instance(const Config& config);

// The oob_default the load fills invalid slots with, as the bits of one element
// (zero-extended); nullopt where the config gives none.
std::optional<std::uint64_t> oob_default_bits(const Config& config);

// The bits the kernel's RUNTIME oob_default parameter receives (always passed).
std::uint64_t runtime_oob_bits(DType dtype);

// A config whose load takes a RUNTIME valid_items: the out-of-range trap check
// launches it with a value outside 0..tile.
const Config& trap_check_config(const std::vector<Batch>& batches);

}  // namespace coop::gpu_test
