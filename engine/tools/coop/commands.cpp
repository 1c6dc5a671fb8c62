#include "commands.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "coop/engine.hpp"
#include "files.hpp"

namespace coop::cli {
namespace {

Engine make_engine() { return Engine(EngineConfig::from_environment("cli")); }

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// Before the compile: a bad path should cost no NVRTC time.
void check_outputs(const CompileArguments& arguments) {
  if (arguments.output) check_output(*arguments.output, "coop compile", "-o");
  if (arguments.header) check_output(*arguments.header, "coop compile", "--header");
  if (arguments.output && arguments.header && same_file(*arguments.output, *arguments.header)) {
    reject(ErrorKind::InvalidArgument, "coop compile", "--header", quoted(*arguments.header),
           "a file other than -o's (" + quoted(*arguments.output) + "): the header would overwrite the LTO-IR");
  }
}

nlohmann::json provider_json(const Provider& provider) {
  nlohmann::json abi = nlohmann::json::array();
  for (const auto& param : provider.abi) {
    abi.push_back({{"name", param.name},
                   {"kind", param.kind == AbiKind::Pointer ? "pointer" : "value"},
                   {"type", param.cpp_type}});
  }
  nlohmann::json externals = nlohmann::json::array();
  for (const auto& function : provider.external_functions) {
    externals.push_back({{"symbol", function.symbol}, {"declaration", function.declaration}});
  }
  return {{"symbol", provider.symbol},
          {"cub_type", provider.cub_type},
          {"abi", abi},
          {"result", provider.result ? nlohmann::json(provider.result->cpp_type) : nlohmann::json()},
          {"external_functions", externals},
          {"scratch_bytes", provider.scratch.bytes},
          {"scratch_alignment", provider.scratch.alignment},
          {"scratch_instances", provider.scratch_instances},
          {"reuse_barrier", to_string(provider.reuse_barrier)}};
}

LinkInputKind kind_of(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".ltoir") return LinkInputKind::LtoIr;
  if (extension == ".cubin") return LinkInputKind::Cubin;
  if (extension == ".ptx") return LinkInputKind::Ptx;
  if (extension == ".fatbin") return LinkInputKind::Fatbin;
  if (extension == ".o") return LinkInputKind::Object;
  reject(ErrorKind::InvalidArgument, "coop link", "input", "'" + path + "'",
         "a file ending in .ltoir, .cubin, .ptx, .fatbin or .o");
}

// Declarations plus, per call in command-line order, macros for its symbol and scratch.
std::string header_text(const Bundle& bundle, const std::vector<Plan>& plans) {
  std::string text = "// Providers compiled by cuda.coop " + std::string(engine_version()) + " for " + bundle.arch +
                     " (cache key " + bundle.cache_key.substr(0, 16) +
                     ").\n#pragma once\n#include <cuda/std/cstdint>\n";
  for (std::size_t i = 0; i < bundle.providers.size(); ++i) {
    const Provider& provider = bundle.providers[i];
    const std::string macro = "COOP_PROVIDER_" + std::to_string(i);
    text += "\n// " + plans[i].facts.operation + ": " + provider.cub_type + "\n" + declaration(provider) + "\n";
    text += "#define " + macro + " " + provider.symbol + "\n";
    text += "#define " + macro + "_SCRATCH_BYTES " + std::to_string(provider.scratch_bytes_per_block()) + "\n";
    text += "#define " + macro + "_SCRATCH_ALIGN " +
            std::to_string(std::max<std::size_t>(provider.scratch.alignment, 1)) + "\n";
  }
  return text;
}

}  // namespace

int explain(const CallArguments& call, const std::string& arch) {
  Engine engine = make_engine();
  const Plan plan = engine.plan(to_call_facts(call, "coop explain"));
  std::cout << "== plan ==\n"
            << plan.describe() << "\n== generated C++ (" << arch << ") ==\n"
            << engine.emit({plan}, arch).text;
  return 0;
}

int compile(const CompileArguments& arguments) {
  Engine engine = make_engine();
  std::vector<Plan> plans = {engine.plan(to_call_facts(arguments.call, "coop compile"))};
  for (const auto& description : arguments.more_calls) {
    plans.push_back(engine.plan(parse_call_description(description, "coop compile")));
  }
  check_outputs(arguments);
  const Bundle bundle = engine.compile(plans, arguments.arch);
  if (arguments.output) {
    write_output(*arguments.output, {bundle.ltoir.data(), bundle.ltoir.size()}, "coop compile", "-o");
  }
  if (arguments.header) write_output(*arguments.header, header_text(bundle, plans), "coop compile", "--header");
  if (arguments.json) {
    nlohmann::json providers = nlohmann::json::array();
    for (const auto& provider : bundle.providers) providers.push_back(provider_json(provider));
    std::cout << nlohmann::json{{"arch", bundle.arch},
                                {"cache_key", bundle.cache_key},
                                {"cache", to_string(bundle.cache)},
                                {"compile_seconds", bundle.compile_seconds},
                                {"used_pch", bundle.used_pch},
                                {"ltoir_bytes", bundle.ltoir.size()},
                                {"ltoir_path", arguments.output.value_or("")},
                                {"source_dump", bundle.dump_path},
                                {"providers", providers}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "bundle for " << bundle.arch << ": " << plans.size() << " call(s), " << bundle.ltoir.size()
            << " bytes of LTO-IR, cache " << to_string(bundle.cache) << ", NVRTC " << bundle.compile_seconds << " s"
            << (bundle.used_pch ? " (precompiled header)" : "") << "\n";
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Provider& provider = bundle.providers[i];
    std::cout << "  " << provider.symbol << "\n    " << provider.cub_type << "::" << plans[i].method
              << "\n    scratch: " << provider.scratch.bytes << " bytes, align " << provider.scratch.alignment << " x "
              << provider.scratch_instances << " instance(s); reuse barrier: " << to_string(provider.reuse_barrier)
              << "\n";
  }
  if (arguments.output) std::cout << "LTO-IR written to " << *arguments.output << "\n";
  if (arguments.header) std::cout << "declarations written to " << *arguments.header << "\n";
  if (!bundle.dump_path.empty()) std::cout << "source dumped to " << bundle.dump_path << "\n";
  return 0;
}

int link(const LinkArguments& arguments) {
  check_output(arguments.output, "coop link", "-o");
  std::vector<LinkInput> inputs;
  for (const auto& path : arguments.inputs) {
    const LinkInputKind kind = kind_of(path);
    if (same_file(path, arguments.output)) {
      reject(ErrorKind::InvalidArgument, "coop link", "-o", quoted(arguments.output),
             "a file other than the inputs (the cubin would overwrite " + quoted(path) + ")");
    }
    inputs.push_back({kind, read_input(path, "coop link", "input"), path});
  }
  Engine engine = make_engine();
  // nvJitLink says only "unrecognized architecture"; NVRTC lists what the toolkit targets.
  require_supported_arch(engine.toolkit(), arguments.arch, "coop link");
  const LinkResult result = coop::link(engine.toolkit(), inputs, arguments.arch);
  write_output(arguments.output, {result.cubin.data(), result.cubin.size()}, "coop link", "-o");
  std::cout << "linked " << inputs.size() << " input(s) for " << arguments.arch << " into " << arguments.output << " ("
            << result.cubin.size() << " bytes, " << result.seconds << " s)\n";
  return 0;
}

int cache_stats(bool json) {
  const CacheStats stats = DiskCache(CacheConfig::from_environment()).stats();
  if (json) {
    std::cout << nlohmann::json{{"directory", stats.directory},
                                {"enabled", stats.enabled},
                                {"entries", stats.entries},
                                {"bytes", stats.bytes}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "cache directory: " << stats.directory << (stats.enabled ? "" : " (disabled by CUDA_COOP_ENABLE_CACHE)")
            << "\nentries: " << stats.entries << "\nbytes: " << stats.bytes << "\n";
  return 0;
}

int cache_clear() {
  const DiskCache cache(CacheConfig::from_environment());
  const std::size_t removed = cache.clear();
  std::cout << "removed " << removed << " entr" << (removed == 1 ? "y" : "ies") << " from " << cache.config().directory
            << "\n";
  return 0;
}

int doctor() {
  Engine engine = make_engine();
  const Toolkit& toolkit = engine.toolkit();
  const CacheStats stats = engine.disk_cache().stats();
  const EngineConfig& config = engine.config();
  std::cout << "engine:        " << engine_version() << "\n"
            << "NVRTC:         " << toolkit.nvrtc_library << " (" << toolkit.nvrtc_version() << ")\n"
            << "nvJitLink:     " << toolkit.nvjitlink_library << " (" << toolkit.nvjitlink_version() << ")\n"
            << "CCCL headers:  " << toolkit.cccl_include << " (CCCL " << toolkit.cccl_version << ")\n"
            << "CUDA headers:  " << toolkit.cuda_include << "\n"
            << "header digest: " << toolkit.header_digest << "\n"
            << "identity:      " << toolkit.identity << "\n"
            << "cache:         " << stats.directory << (stats.enabled ? "" : " (disabled)") << ", " << stats.entries
            << " entries, " << stats.bytes << " bytes\n"
            << "source dumps:  " << (config.source_dump_dir.empty() ? "off" : config.source_dump_dir) << "\n";
  return 0;
}

}  // namespace coop::cli
