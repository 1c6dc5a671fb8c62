// How long a user waits for providers: NVRTC in a fresh process, a second
// distinct bundle in the same process with and without NVRTC's precompiled
// header, and a disk-cache hit. Every scenario runs in a forked child so each
// starts with NVRTC unloaded, as a new Python process would.
//
//   engine_compile_latency [--repeat N] [--json FILE]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coop/engine.hpp"

namespace {

using Clock = std::chrono::steady_clock;

coop::CallFacts call(const std::string& operation, const std::string& algorithm, coop::DType dtype) {
  coop::CallFacts facts{operation, coop::Group::this_block({128, 1, 1}), dtype, 4, {}, ""};
  facts.options["algorithm"] = coop::OptionBinding::fixed(algorithm);
  facts.options["valid_items"] = coop::OptionBinding::runtime();
  return facts;
}

// Two bundles with the same includes and different bodies, as two kernels of one program.
std::vector<coop::CallFacts> bundle(int which) {
  const coop::DType dtype = which == 0 ? coop::DType::Int32 : coop::DType::Float32;
  return {call("load", "transpose", dtype), call("store", "warp_transpose", dtype)};
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Wall time of compiling `bundle(which)` through `engine`, planning included.
double compile_wall(coop::Engine& engine, int which) {
  const auto start = Clock::now();
  std::vector<coop::Plan> plans;
  for (const auto& facts : bundle(which)) plans.push_back(engine.plan(facts));
  engine.compile(plans, "sm_90");
  return seconds_since(start);
}

coop::EngineConfig config(coop::PchPolicy pch, const std::string& cache_dir) {
  coop::EngineConfig result = coop::EngineConfig::from_environment("bench");
  result.pch = pch;
  result.cache = coop::CacheConfig{!cache_dir.empty(), cache_dir};
  return result;
}

// Runs `body` in a child process and returns the numbers it reports.
std::vector<double> in_fresh_process(const std::function<std::vector<double>()>& body) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    std::string text;
    for (double value : body()) text += std::to_string(value) + " ";
    if (write(fds[1], text.data(), text.size()) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("benchmark child failed");
  std::vector<double> values;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t used = 0;
    values.push_back(std::stod(text.substr(at), &used));
    at += used;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  return values;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  std::string json_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--repeat") repeat = std::stoi(argv[i + 1]);
    if (std::string(argv[i]) == "--json") json_path = argv[i + 1];
  }
  const std::string cache_dir =
      (std::filesystem::temp_directory_path() / ("coop-bench-" + std::to_string(getpid()))).string();

  struct Row {
    std::string name;
    std::vector<double> samples;
  };
  std::vector<Row> rows = {{"first bundle, fresh process, no PCH", {}},
                           {"second bundle, same process, no PCH", {}},
                           {"first bundle, fresh process, creating the PCH", {}},
                           {"second bundle, same process, PCH reused", {}},
                           {"disk-cache hit, fresh process (locate toolkit + read)", {}},
                           {"memory hit, same process", {}}};
  for (int r = 0; r < repeat; ++r) {
    for (coop::PchPolicy pch : {coop::PchPolicy::Never, coop::PchPolicy::Always}) {
      const auto times = in_fresh_process([&] {
        coop::Engine engine(config(pch, ""));
        return std::vector<double>{compile_wall(engine, 0), compile_wall(engine, 1)};
      });
      const std::size_t base = pch == coop::PchPolicy::Never ? 0 : 2;
      rows[base].samples.push_back(times[0]);
      rows[base + 1].samples.push_back(times[1]);
    }
    std::filesystem::remove_all(cache_dir);
    in_fresh_process([&] {
      coop::Engine engine(config(coop::PchPolicy::Never, cache_dir));
      return std::vector<double>{compile_wall(engine, 0)};
    });
    const auto warm = in_fresh_process([&] {
      coop::Engine engine(config(coop::PchPolicy::Always, cache_dir));
      const double disk = compile_wall(engine, 0);
      return std::vector<double>{disk, compile_wall(engine, 0)};
    });
    rows[4].samples.push_back(warm[0]);
    rows[5].samples.push_back(warm[1]);
  }
  std::filesystem::remove_all(cache_dir);

  const double reference = median(rows[0].samples);
  nlohmann::json report = nlohmann::json::array();
  std::printf("%-56s %12s %14s\n", "scenario (median of runs)", "seconds", "vs first/noPCH");
  for (const auto& row : rows) {
    const double value = median(row.samples);
    std::printf("%-56s %12.4f %14.3f\n", row.name.c_str(), value, value / reference);
    report.push_back(
        {{"scenario", row.name}, {"seconds", value}, {"ratio", value / reference}, {"samples", row.samples}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << report.dump(2) << "\n";
  return 0;
}
