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

Engine make_engine() { return Engine(EngineConfig::from_environment("cli", PchPolicy::AfterFirst)); }

// Paths come from the user and need not be UTF-8; JSON must be, so odd bytes print as U+FFFD
// rather than turn a report (of an error, even) into an exception.
std::string json_text(const nlohmann::json& document) {
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

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
    abi.push_back({{"name", param.name}, {"kind", to_string(param.kind)}, {"type", param.cpp_type}});
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

// The doctor describes an unusable cache instead of failing on it: diagnosing is its job.
std::string cache_summary(const DiskCache& cache) {
  try {
    const CacheStats stats = cache.stats();
    return stats.directory + (stats.enabled ? "" : " (disabled)") + ", " + std::to_string(stats.entries) +
           " entries, " + std::to_string(stats.bytes) + " bytes";
  } catch (const Error& error) {
    return cache.config().directory + " (unusable: " + error.what() + ")";
  }
}

}  // namespace

int explain(const CallArguments& call, const std::string& arch) {
  Engine engine = make_engine();
  const Plan plan = engine.plan(to_call_facts(call, "coop explain"));
  require_supported_arch(engine.toolkit(), arch, "coop explain");  // what it prints must compile
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
  const LinkResult result = coop::link(engine.toolkit(), inputs, arguments.arch, "coop link");
  write_output(arguments.output, {result.cubin.data(), result.cubin.size()}, "coop link", "-o");
  std::cout << "linked " << inputs.size() << " input(s) for " << arguments.arch << " into " << arguments.output << " ("
            << result.cubin.size() << " bytes, " << result.seconds << " s)\n";
  return 0;
}

int cache_stats(bool json) {
  const CacheStats stats = DiskCache(CacheConfig::from_environment()).stats();
  if (json) {
    std::cout << json_text({{"directory", stats.directory},
                            {"enabled", stats.enabled},
                            {"entries", stats.entries},
                            {"bytes", stats.bytes}})
              << "\n";
    return 0;
  }
  std::cout << "cache directory: " << stats.directory << (stats.enabled ? "" : " (disabled by CUDA_COOP_ENABLE_CACHE)")
            << "\nentries: " << stats.entries << "\nbytes: " << stats.bytes << "\n";
  return 0;
}

int cache_clear(bool json) {
  const DiskCache cache(CacheConfig::from_environment());
  const CacheClearReport report = cache.clear();
  const std::string& directory = cache.config().directory;
  std::string message;
  if (!report.failures.empty()) {
    message = "coop cache clear: could not remove " + std::to_string(report.failures.size()) + " file(s) from '" +
              directory + "'; remove them by hand:";
    for (const CacheFailure& failure : report.failures) message += "\n  '" + failure.path + "': " + failure.reason;
  }
  if (json) {
    nlohmann::json failed = nlohmann::json::array();
    for (const CacheFailure& failure : report.failures) {
      failed.push_back({{"path", failure.path}, {"reason", failure.reason}});
    }
    nlohmann::json document = {{"directory", directory}, {"removed", report.removed}, {"failed", failed}};
    if (!message.empty()) document["error"] = {{"kind", to_string(ErrorKind::Cache)}, {"message", message}};
    std::cout << json_text(document) << "\n";
    return message.empty() ? 0 : 1;
  }
  std::cout << "removed " << report.removed << " entr" << (report.removed == 1 ? "y" : "ies") << " from " << directory
            << "\n";
  if (message.empty()) return 0;
  print_error(to_string(ErrorKind::Cache), message, false);
  return 1;
}

void print_error(const std::string& kind, const std::string& message, bool json) {
  if (json) {
    std::cout << json_text({{"error", {{"kind", kind}, {"message", message}}}}) << "\n";
  } else {
    std::cerr << "coop: " << kind << ": " << message << "\n";
  }
}

int doctor() {
  Engine engine = make_engine();
  const Toolkit& toolkit = engine.toolkit();
  const EngineConfig& config = engine.config();
  std::cout << "engine:        " << engine_version() << "\n"
            << "NVRTC:         " << toolkit.nvrtc_library << " (" << toolkit.nvrtc_version() << ")\n"
            << "nvJitLink:     " << toolkit.nvjitlink_library << " (" << toolkit.nvjitlink_version() << ")\n"
            << "CCCL headers:  " << toolkit.cccl_include << " (CCCL " << toolkit.cccl_version << ")\n"
            << "CUDA headers:  " << toolkit.cuda_include << "\n"
            << "header digest: " << toolkit.header_digest << "\n"
            << "identity:      " << toolkit.identity << "\n"
            << "cache:         " << cache_summary(engine.disk_cache()) << "\n"
            << "source dumps:  " << (config.source_dump_dir.empty() ? "off" : config.source_dump_dir) << "\n";
  return 0;
}

}  // namespace coop::cli
