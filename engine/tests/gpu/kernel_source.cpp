#include "kernel_source.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace coop::gpu_test {
namespace {

bool is_half(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

// The type the kernel's oob operand has: what the load wrapper takes when it
// takes one, else the same rule (16-bit floats travel as their bits).
std::string oob_type(const Config& config, const Provider& load) {
  for (const AbiParam& param : load.abi) {
    if (param.name == "oob_default") return param.cpp_type;
  }
  return is_half(config.dtype) ? "::cuda::std::uint16_t" : std::string(info(config.dtype).cpp);
}

std::string signature(const Provider& provider) {
  std::string text;
  for (const AbiParam& param : provider.abi) {
    text += (param.kind == AbiKind::Pointer ? std::string("void*") : param.cpp_type) + " " + param.name + ";";
  }
  return text;
}

// The kernel's expression for one wrapper parameter.
std::string argument(const Config& config, const Provider& provider, const AbiParam& param) {
  const bool pointer = param.kind == AbiKind::Pointer;
  if (param.name == "source" && pointer) return "const_cast<T*>(src + tile_base)";
  if (param.name == "destination" && pointer) return "dst + tile_base";
  if (param.name == "items" && pointer) return "items";
  if (param.name == "temp_storage" && pointer) return "scratch";
  if (param.name == "valid_items" && !pointer) return "valid_items";
  if (param.name == "offset" && !pointer) return "offset";
  if (param.name == "oob_default" && !pointer) return "oob_default";
  throw std::runtime_error("kernel_source: " + provider.symbol + " (" + config.describe() +
                           ") has an ABI parameter the test does not know: " + param.name + " (" + param.cpp_type +
                           (pointer ? "*" : "") + ")");
}

std::string call(const Config& config, const Provider& provider) {
  std::string text = "  " + provider.symbol + "(&ret";
  for (const AbiParam& param : provider.abi) text += ",\n      " + argument(config, provider, param);
  return text + ");\n";
}

void emit_kernel(std::ostream& out, const Config& config, const Provider& load, const Provider& store) {
  const std::string type(info(config.dtype).cpp);
  const std::size_t scratch_bytes = std::max(load.scratch_bytes_per_block(), store.scratch_bytes_per_block());
  const std::size_t scratch_align = std::max<std::size_t>({16, load.scratch.alignment, store.scratch.alignment});

  out << "// " << config.describe() << "\n"
      << "// load:  " << load.cub_type << "\n"
      << "// store: " << store.cub_type << "\n"
      << "extern \"C\" __global__ void __launch_bounds__(" << config.block_threads() << ") " << config.kernel_name()
      << "(const void* source, void* destination, void* dump_items, const long long* valid_list, "
      << oob_type(config, load) << " oob_default) {\n"
      << "  using T = " << type << ";\n"
      << "  constexpr int kItems = " << config.items << ";\n"
      << "  constexpr unsigned kThreads = " << config.block_threads() << "u;\n"
      << "  constexpr unsigned kGroupThreads = " << config.group_threads() << "u;\n"
      << "  constexpr unsigned kInstances = " << config.instances() << "u;\n"
      << "  constexpr long long kGroupTile = " << config.group_tile() << "LL;\n"
      << "  constexpr long long kBlockTile = " << config.block_tile() << "LL;\n"
      << "  constexpr long long kShift = " << config.shift() << "LL;  // elements before the first tile\n"
      << "  const T* src = static_cast<const T*>(source);\n"
      << "  T* dst = static_cast<T*>(destination);\n"
      << "  T* dump = static_cast<T*>(dump_items);\n"
      << "  // x-major thread rank, as CUB ranks a block.\n"
      << "  const unsigned rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
      << "  const unsigned group = rank / kGroupThreads;  // logical warp (0 for a block group)\n"
      << "  const long long block_base = static_cast<long long>(blockIdx.x) * kBlockTile;\n";
  if (config.has_offset()) {
    out << "  // The block's tile offset arrives as the RUNTIME offset; the pointer is the group's tile in block 0.\n"
        << "  const long long tile_base = kShift + group * kGroupTile;\n";
  } else {
    out << "  const long long tile_base = kShift + block_base + group * kGroupTile;\n";
  }
  out << "  const ::cuda::std::int64_t offset = block_base;\n"
      << "  const ::cuda::std::int64_t valid_items = valid_list[blockIdx.x * kInstances + group];\n"
      << "  (void)offset;\n  (void)valid_items;\n  (void)oob_default;\n  (void)kBlockTile;\n";
  if (scratch_bytes > 0) {
    out << "  // One TempStorage per group instance, shared by the load and the store.\n"
        << "  __shared__ __align__(" << scratch_align << ") unsigned char scratch[" << scratch_bytes << "];\n";
  }
  out << "  T items[kItems] = {};\n"
      << "  int ret = 0;\n"
      << call(config, load) << "  for (int i = 0; i < kItems; ++i) {\n"
      << "    dump[(static_cast<long long>(blockIdx.x) * kThreads + rank) * kItems + i] = items[i];\n"
      << "  }\n"
      << "  // The store reuses the load's scratch (reuse barrier: " << to_string(load.reuse_barrier) << ").\n"
      << "  __syncthreads();\n"
      << call(config, store) << "  (void)ret;\n"
      << "}\n\n";
}

}  // namespace

std::string kernel_source(const Batch& batch, const std::vector<Provider>& providers) {
  if (providers.size() != 2 * batch.configs.size()) {
    throw std::runtime_error("kernel_source: " + std::to_string(providers.size()) + " providers for " +
                             std::to_string(batch.configs.size()) + " configs (expected a load and a store each)");
  }
  std::set<std::string> headers = {"cuda/std/cstdint"};
  for (const Config& config : batch.configs) {
    if (!info(config.dtype).header.empty()) headers.insert(std::string(info(config.dtype).header));
  }

  std::ostringstream out;
  out << "// Test kernels for batch " << batch.index << ": " << batch.title << ".\n"
      << "// Generated by load_store_gpu; the wrappers come from the engine's bundle (LTO-IR).\n";
  for (const std::string& header : headers) out << "#include <" << header << ">\n";
  out << "\n";

  // Each wrapper declared once, exactly as Provider::abi describes it (coop::declaration).
  std::map<std::string, std::string> declared;  // symbol -> signature
  for (const Provider& provider : providers) {
    const auto [found, inserted] = declared.try_emplace(provider.symbol, signature(provider));
    if (inserted) {
      out << coop::declaration(provider) << "\n";
    } else if (found->second != signature(provider)) {
      throw std::runtime_error("kernel_source: symbol " + provider.symbol + " comes with two different ABIs");
    }
  }
  out << "\n";
  for (std::size_t i = 0; i < batch.configs.size(); ++i) {
    emit_kernel(out, batch.configs[i], providers[2 * i], providers[2 * i + 1]);
  }
  return out.str();
}

}  // namespace coop::gpu_test
