// load_store_gpu: every block and warp load/store configuration of the matrix
// (matrix.hpp), planned by coop::Engine, compiled into bundles, linked with
// generated test kernels and launched; the results are checked on the host.
//
//   load_store_gpu [--filter TEXT] [--jobs N] [--arch sm_XY] [--compile-only]
//                  [--work-dir DIR] [--keep-failures DIR] [--timeout S] [--deadline S] [--list]
//
// One line per batch, then the trap check, then the last line: "N passed, N failed".
// The exit status is 0 only when nothing failed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "build.hpp"
#include "check.hpp"
#include "coop/engine.hpp"
#include "device.hpp"
#include "matrix.hpp"
#include "process.hpp"
#include "rejections.hpp"
#include "trap_check.hpp"

namespace fs = std::filesystem;
using namespace coop;
using namespace coop::gpu_test;

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point kStart = Clock::now();

double elapsed() { return std::chrono::duration<double>(Clock::now() - kStart).count(); }

std::string fixed(double value, int digits = 1) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

struct Options {
  std::string filter;
  int jobs = 0;  // 0: one per core
  std::string arch;
  bool compile_only = false;
  bool list = false;
  std::string work_dir;
  std::string keep_failures;
  double timeout = 30;  // per launch
  double deadline = 0;  // whole run; 0: none
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "load_store_gpu: " << problem
            << "\nusage: load_store_gpu [--filter TEXT] [--jobs N] [--arch sm_XY] [--compile-only] [--work-dir DIR]\n"
               "                      [--keep-failures DIR] [--timeout SECONDS] [--deadline SECONDS] [--list]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--filter")
      options.filter = value();
    else if (flag == "--jobs")
      options.jobs = std::stoi(value());
    else if (flag == "--arch")
      options.arch = value();
    else if (flag == "--compile-only")
      options.compile_only = true;
    else if (flag == "--list")
      options.list = true;
    else if (flag == "--work-dir")
      options.work_dir = value();
    else if (flag == "--keep-failures")
      options.keep_failures = value();
    else if (flag == "--timeout")
      options.timeout = std::stod(value());
    else if (flag == "--deadline")
      options.deadline = std::stod(value());
    else
      usage("unknown argument " + flag);
  }
  return options;
}

struct Tally {
  long long passed = 0;
  long long failed = 0;
};

int finish(const Tally& tally) {
  std::cout << "load_store_gpu: finished in " << fixed(elapsed()) << " s\n";
  std::cout << tally.passed << " passed, " << tally.failed << " failed" << std::endl;
  return tally.failed == 0 ? 0 : 1;
}

// The deadline covers the whole run; building stops early enough to leave the launches this reserve.
constexpr double kRunReserveSeconds = 45;

bool past_deadline(const Options& options, double reserve = 0) {
  return options.deadline > 0 && elapsed() > options.deadline - reserve;
}

void keep_artifacts(const Options& options, const std::string& work_dir, int index) {
  if (options.keep_failures.empty()) return;
  std::error_code error;
  fs::create_directories(options.keep_failures, error);
  for (const char* suffix : {".cu", ".bundle.cu", ".error", ".info"}) {
    const std::string from = batch_path(work_dir, index, suffix);
    if (fs::exists(from)) {
      fs::copy_file(from, options.keep_failures + "/" + fs::path(from).filename().string(),
                    fs::copy_options::overwrite_existing, error);
    }
  }
}

constexpr int kDetailedFailuresPerBatch = 6;

// Runs (or, compiling only, accounts for) one batch and prints its line.
void run_batch(const Options& options, Device* device, const std::string& work_dir, const Batch& batch, Tally& tally) {
  const long long count = static_cast<long long>(batch.configs.size());
  const std::string label = "batch " + std::to_string(batch.index) + " " + batch.title;
  const std::string info_path = batch_path(work_dir, batch.index, ".info");
  const std::string info = fs::exists(info_path) ? " (" + read_text(info_path) + ")" : "";
  const std::string error_path = batch_path(work_dir, batch.index, ".error");
  const std::string cubin_path = batch_path(work_dir, batch.index, ".cubin");

  auto fail_all = [&](const std::string& why) {
    std::cout << "[FAIL] " << label << ": 0/" << count << " passed: " << why << std::endl;
    tally.failed += count;
    keep_artifacts(options, work_dir, batch.index);
  };
  if (fs::exists(error_path)) return fail_all("build failed:\n" + tail(read_text(error_path), 60));
  if (!fs::exists(cubin_path)) return fail_all("not built (worker died or deadline; see worker logs)");
  if (device == nullptr) {
    std::cout << "[built] " << label << ": " << count << " kernels linked" << info << std::endl;
    tally.passed += count;
    return;
  }
  if (past_deadline(options)) return fail_all("not run: deadline reached");
  try {
    device->load_module(read_bytes(cubin_path));
  } catch (const DeviceError& error) {
    return fail_all(error.what());
  }

  long long passed = 0;
  std::vector<std::string> details;
  for (const Config& config : batch.configs) {
    std::vector<std::string> findings;
    try {
      const HostCase host = make_case(config);
      Bytes destination, dump;
      device->run(config, host, host.valid, destination, dump, options.timeout);
      findings = verify(config, host, destination, dump);
    } catch (const DeviceError& error) {
      findings = {error.what()};
    } catch (const HangError& error) {
      std::cout << "[FAIL] " << label << ": " << passed << "/" << count << " passed, then " << config.describe() << ": "
                << error.what() << std::endl;
      tally.passed += passed;
      tally.failed += count - passed;
      keep_artifacts(options, work_dir, batch.index);
      throw;
    }
    if (findings.empty()) {
      ++passed;
      continue;
    }
    std::string text = "  FAIL " + config.describe();
    for (const std::string& line : findings) text += "\n    " + line;
    details.push_back(text);
  }
  tally.passed += passed;
  tally.failed += count - passed;
  std::cout << (passed == count ? "[ok]   " : "[FAIL] ") << label << ": " << passed << "/" << count << " passed" << info
            << "\n";
  for (std::size_t i = 0; i < details.size() && i < kDetailedFailuresPerBatch; ++i) std::cout << details[i] << "\n";
  if (details.size() > kDetailedFailuresPerBatch) {
    std::cout << "  ... and " << details.size() - kDetailedFailuresPerBatch << " more failing configs\n";
  }
  if (!details.empty()) keep_artifacts(options, work_dir, batch.index);
  std::cout << std::flush;
}

void check_traps(const Options& options, const std::string& work_dir, const std::vector<Batch>& batches,
                 const std::vector<int>& selected, Tally& tally) {
  const Config& config = trap_check_config(batches);
  const bool built = std::any_of(selected.begin(), selected.end(), [&](int index) {
    const auto& configs = batches[index].configs;
    return std::any_of(configs.begin(), configs.end(), [&](const Config& c) { return c.id == config.id; });
  });
  if (!built) {
    std::cout << "trap on out-of-range valid_items: skipped (its batch is filtered out)\n";
    return;
  }
  std::string problems;
  for (const long long value : {config.group_tile() + 1, -1LL}) {
    const TrapOutcome outcome = check_trap(work_dir, value, options.timeout);
    if (!outcome.ok) problems += "\n  valid_items = " + std::to_string(value) + ":\n" + outcome.detail;
  }
  if (problems.empty()) {
    std::cout << "trap on out-of-range valid_items: ok" << std::endl;
    tally.passed += 1;
  } else {
    std::cout << "trap on out-of-range valid_items: FAILED" << problems << std::endl;
    tally.failed += 1;
  }
}

std::string make_work_dir(const Options& options) {
  if (options.work_dir.empty()) {
    char path[] = "/tmp/load_store_gpu_XXXXXX";
    if (::mkdtemp(path) == nullptr) throw std::runtime_error("mkdtemp failed");
    return path;
  }
  // A reused directory must not hold claims or results of an earlier run.
  fs::create_directories(options.work_dir);
  for (const auto& entry : fs::directory_iterator(options.work_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("batch_") || name.starts_with("worker_") || name.starts_with("trap_") || name == "selected") {
      fs::remove(entry.path());
    }
  }
  return fs::absolute(options.work_dir).string();
}

int run(const Options& options) {
  const std::vector<Batch> batches = test_batches();
  std::vector<int> selected;
  long long configs = 0;
  for (const Batch& batch : batches) {
    if (batch.title.find(options.filter) == std::string::npos) continue;
    selected.push_back(batch.index);
    configs += static_cast<long long>(batch.configs.size());
  }
  if (options.list) {
    for (const int index : selected) {
      std::cout << "batch " << index << " " << batches[index].title << ": " << batches[index].configs.size()
                << " configs\n";
    }
    std::cout << configs << " configs in " << selected.size() << " batches\n";
    return 0;
  }
  std::cout << "load_store_gpu: " << configs << " configurations (a load and a store each) in " << selected.size()
            << " batches" << (options.filter.empty() ? "" : " matching '" + options.filter + "'") << std::endl;

  Tally tally;
  const RejectionResult rejections = check_rejections();
  tally.passed += rejections.passed;
  tally.failed += rejections.failed;
  if (selected.empty()) {
    std::cout << "[FAIL] no batch matches '" << options.filter << "' (--list shows them)\n";
    tally.failed += 1;
    return finish(tally);
  }

  std::unique_ptr<Device> device;
  std::string arch = options.arch;
  if (!options.compile_only) {
    try {
      device = std::make_unique<Device>();
    } catch (const DeviceError& error) {
      std::cout << "[FAIL] cannot use the GPU: " << error.what() << " (use --compile-only to build without one)\n";
      tally.failed += configs;
      return finish(tally);
    }
    std::cout << "device: " << device->description() << std::endl;
    if (arch.empty()) arch = device->arch();
  }
  if (arch.empty()) arch = "sm_90";

  const std::string work_dir = make_work_dir(options);
  std::cout << "work directory: " << work_dir << std::endl;
  build_batches(work_dir, arch, selected, options.jobs, [&] { return past_deadline(options, kRunReserveSeconds); });

  const double run_start = elapsed();
  for (std::size_t i = 0; i < selected.size(); ++i) {
    try {
      run_batch(options, device.get(), work_dir, batches[selected[i]], tally);
    } catch (const HangError&) {
      // A kernel that never finishes leaves nothing to trust: count the rest as failed and stop.
      long long rest = 0;
      for (std::size_t j = i + 1; j < selected.size(); ++j) rest += batches[selected[j]].configs.size();
      std::cout << "stopping after a hang; " << rest << " configurations not run" << std::endl;
      tally.failed += rest + 1;  // and the trap check
      std::cout << "load_store_gpu: work directory kept: " << work_dir << "\n";
      std::cout << std::flush;
      std::_Exit(finish(tally));
    }
  }
  if (device) {
    std::cout << "ran " << configs << " configurations in " << fixed(elapsed() - run_start) << " s" << std::endl;
    device.reset();  // the trap check's process needs the GPU even in exclusive-process compute mode
    check_traps(options, work_dir, batches, selected, tally);
  }

  if (tally.failed == 0 && options.work_dir.empty()) {
    std::error_code error;
    fs::remove_all(work_dir, error);
  }
  return finish(tally);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  try {
    if (!arguments.empty() && arguments[0] == "--build-worker" && arguments.size() == 3) {
      return run_build_worker(arguments[1], arguments[2]);
    }
    if (!arguments.empty() && arguments[0] == "--trap-check" && arguments.size() == 4) {
      return run_trap_child(arguments[1], std::stoll(arguments[2]), std::stod(arguments[3]));
    }
    return run(parse(argc, argv));
  } catch (const std::exception& error) {
    std::cout << "load_store_gpu: error: " << error.what() << "\n0 passed, 1 failed" << std::endl;
    return 1;
  }
}
