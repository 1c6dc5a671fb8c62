#include "matrix.hpp"

#include <algorithm>
#include <stdexcept>

namespace coop::gpu_test {
namespace {

const std::vector<std::string> kBlockAlgorithms = {"direct",    "striped",        "vectorize",
                                                   "transpose", "warp_transpose", "warp_transpose_timesliced"};
const std::vector<std::string> kWarpAlgorithms = {"direct", "striped", "vectorize", "transpose"};
const std::vector<DType> kDtypes = {DType::Int8,     DType::Int32,   DType::Int64,  DType::Float16,
                                    DType::BFloat16, DType::Float32, DType::Float64};
// (40,1,1) is not whole warps: warp groups and the warp_transpose algorithms skip it,
// as the engine rejects them there. (16,4,2) checks the x-major rank through z.
const std::vector<Dim3> kBlocks = {{128, 1, 1}, {32, 4, 1}, {96, 1, 1}, {40, 1, 1}, {16, 4, 2}};
const std::vector<int> kItems = {1, 2, 4, 7};
const std::vector<int> kWarpWidths = {8, 16, 32};
const std::vector<TileCase> kTileCases = {TileCase::Full, TileCase::RuntimePartial, TileCase::StaticPartial,
                                          TileCase::RuntimeOffset, TileCase::Unaligned};
constexpr int kGrid = 6;

std::string shape(const Dim3& block) {
  return "(" + std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) + ")";
}

// Warp groups, and the block algorithms that CUB only instantiates for blocks of whole
// warps, need a block of whole warps; the engine rejects the rest (checked host-side).
bool needs_whole_warps(GroupKind kind, const std::string& algorithm) {
  return kind == GroupKind::Warp || algorithm.starts_with("warp_transpose");
}

// splitmix64: a tiny deterministic generator for per-config choices.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t mask(DType dtype) {
  const int bits = info(dtype).size * 8;
  return bits == 64 ? ~0ULL : (1ULL << bits) - 1;
}

long long static_valid_items(const Config& config) { return config.group_tile() * 3 / 5 + 1; }

std::string static_oob_literal(DType dtype) {
  if (dtype == DType::Bool) return "true";
  if (info(dtype).is_floating) return "-2.5";
  return info(dtype).name.front() == 'u' ? "7" : "-7";
}

std::uint64_t static_oob_bits(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return 1;
    case DType::Float16:
      return 0xC100;  // -2.5
    case DType::BFloat16:
      return 0xC020;  // -2.5
    case DType::Float32:
      return 0xC0200000;  // -2.5f
    case DType::Float64:
      return 0xC004000000000000ULL;
    default:
      break;
  }
  if (info(dtype).name.front() == 'u') return 7;
  return static_cast<std::uint64_t>(-7LL) & mask(dtype);
}

CallFacts facts(const Config& config, const std::string& operation) {
  CallFacts result;
  result.operation = operation;
  result.group = config.group();
  result.dtype = config.dtype;
  result.items_per_thread = config.items;
  result.where = "load_store_gpu " + config.kernel_name();
  result.options["algorithm"] = OptionBinding::fixed(config.algorithm);
  const bool load = operation == "load";
  switch (config.tile_case) {
    case TileCase::Full:
    case TileCase::Unaligned:
      break;
    case TileCase::RuntimePartial:
      result.options["valid_items"] = OptionBinding::runtime();
      if (load) result.options["oob_default"] = OptionBinding::runtime();
      break;
    case TileCase::StaticPartial:
      result.options["valid_items"] = OptionBinding::fixed(std::to_string(static_valid_items(config)));
      if (load) result.options["oob_default"] = OptionBinding::fixed(static_oob_literal(config.dtype));
      break;
    case TileCase::RuntimeOffset:
      result.options["offset"] = OptionBinding::runtime();
      result.options["valid_items"] = OptionBinding::runtime();
      break;
  }
  return result;
}

void add_configs(Batch& batch, GroupKind kind, const std::string& algorithm, DType dtype, int width, int& next_id) {
  for (const Dim3& block : kBlocks) {
    if (needs_whole_warps(kind, algorithm) && block.count() % kWarpThreads != 0) continue;
    for (const int items : kItems) {
      for (const TileCase tile_case : kTileCases) {
        Config config;
        config.id = next_id++;
        config.kind = kind;
        config.algorithm = algorithm;
        config.dtype = dtype;
        config.block = block;
        config.width = kind == GroupKind::Warp ? width : kWarpThreads;
        config.items = items;
        config.tile_case = tile_case;
        config.grid = kGrid;
        batch.configs.push_back(config);
      }
    }
  }
}

}  // namespace

const char* to_string(TileCase tile_case) {
  switch (tile_case) {
    case TileCase::Full:
      return "full";
    case TileCase::RuntimePartial:
      return "runtime-partial";
    case TileCase::StaticPartial:
      return "static-partial";
    case TileCase::RuntimeOffset:
      return "runtime-offset";
    case TileCase::Unaligned:
      return "full-unaligned";
  }
  return "?";
}

Group Config::group() const {
  return kind == GroupKind::Block ? Group::this_block(block) : Group::this_warp(block, width);
}

std::string Config::describe() const {
  const std::string group_text =
      kind == GroupKind::Block ? "block" + shape(block) : "warp(" + std::to_string(width) + ") in block" + shape(block);
  return group_text + " " + algorithm + " " + std::string(info(dtype).name) + " x" + std::to_string(items) + " " +
         to_string(tile_case) + " [" + kernel_name() + "]";
}

std::vector<Batch> test_batches() {
  std::vector<Batch> batches;
  int next_id = 0;
  for (const DType dtype : kDtypes) {
    const std::string type(info(dtype).name);
    for (const auto& algorithm : kBlockAlgorithms) {
      Batch batch{static_cast<int>(batches.size()), "block " + algorithm + " " + type, {}};
      add_configs(batch, GroupKind::Block, algorithm, dtype, kWarpThreads, next_id);
      if (!batch.configs.empty()) batches.push_back(std::move(batch));
    }
    for (const int width : kWarpWidths) {
      for (const auto& algorithm : kWarpAlgorithms) {
        Batch batch{
            static_cast<int>(batches.size()), "warp(" + std::to_string(width) + ") " + algorithm + " " + type, {}};
        add_configs(batch, GroupKind::Warp, algorithm, dtype, width, next_id);
        if (!batch.configs.empty()) batches.push_back(std::move(batch));
      }
    }
  }
  return batches;
}

CallFacts load_facts(const Config& config) { return facts(config, "load"); }
CallFacts store_facts(const Config& config) { return facts(config, "store"); }

std::vector<std::int64_t> valid_items_per_instance(const Config& config) {
  const long long tile = config.group_tile();
  const int count = config.grid * config.instances();
  std::vector<std::int64_t> valid(count, tile);
  switch (config.tile_case) {
    case TileCase::Full:
    case TileCase::Unaligned:
      break;
    case TileCase::StaticPartial:
      std::fill(valid.begin(), valid.end(), static_valid_items(config));
      break;
    case TileCase::RuntimePartial:
      // A value per instance, so a wrapper that ignored its operand would show.
      for (int k = 0; k < count; ++k) {
        const long long random = static_cast<long long>(mix(config.id * 1000003ULL + k) % (tile + 1));
        const long long pattern[] = {random, 0, tile, 1, tile - 1, tile / 2};
        valid[k] = pattern[k % 6];
      }
      break;
    case TileCase::RuntimeOffset: {
      // The tail of an array of `total` elements: full tiles, one partial, then empty ones.
      const long long total = config.elements() - config.block_tile() / 2 - 3;
      for (int k = 0; k < count; ++k) {
        const long long start = k * tile;  // instances are contiguous: block-major, then group
        valid[k] = std::clamp(total - start, 0LL, tile);
      }
      break;
    }
  }
  return valid;
}

std::optional<std::uint64_t> oob_default_bits(const Config& config) {
  if (config.tile_case == TileCase::RuntimePartial) return runtime_oob_bits(config.dtype);
  if (config.tile_case == TileCase::StaticPartial) return static_oob_bits(config.dtype);
  return std::nullopt;
}

std::uint64_t runtime_oob_bits(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return 1;
    case DType::Float16:
      return 0x3D00;  // 1.25
    case DType::BFloat16:
      return 0x3FA0;  // 1.25
    case DType::Float32:
      return 0x3FA00000;  // 1.25f
    case DType::Float64:
      return 0x3FF4000000000000ULL;
    default:
      return 0x5A5A5A5A5A5A5A5AULL & mask(dtype);
  }
}

const Config& trap_check_config(const std::vector<Batch>& batches) {
  for (const Batch& batch : batches) {
    for (const Config& config : batch.configs) {
      if (config.kind == GroupKind::Block && config.algorithm == "transpose" && config.dtype == DType::Int32 &&
          config.tile_case == TileCase::RuntimePartial) {
        return config;
      }
    }
  }
  throw std::logic_error("no block transpose int32 runtime-partial config for the trap check");
}

}  // namespace coop::gpu_test
