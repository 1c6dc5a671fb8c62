#include "trap_check.hpp"

#include <filesystem>
#include <iostream>

#include "build.hpp"
#include "check.hpp"
#include "device.hpp"
#include "process.hpp"

namespace coop::gpu_test {
namespace {

int batch_of(const std::vector<Batch>& batches, const Config& wanted) {
  for (const Batch& batch : batches) {
    for (const Config& config : batch.configs) {
      if (config.id == wanted.id) return batch.index;
    }
  }
  return -1;
}

}  // namespace

int run_trap_child(const std::string& work_dir, long long value, double timeout_seconds) {
  try {
    const std::vector<Batch> batches = test_batches();
    const Config& config = trap_check_config(batches);
    const std::string cubin = batch_path(work_dir, batch_of(batches, config), ".cubin");
    std::cout << "config: " << config.describe() << " (tile " << config.group_tile() << ")\n";
    Device device;
    device.load_module(read_bytes(cubin));
    const HostCase host = make_case(config);
    Bytes destination, dump;

    device.run(config, host, host.valid, destination, dump, timeout_seconds);
    const std::vector<std::string> findings = verify(config, host, destination, dump);
    if (!findings.empty()) {
      std::cout << "control launch (valid_items in range) gave wrong results:\n";
      for (const std::string& line : findings) std::cout << "  " << line << "\n";
      return 3;
    }

    const std::vector<std::int64_t> out_of_range(host.valid.size(), value);
    try {
      device.run(config, host, out_of_range, destination, dump, timeout_seconds);
    } catch (const DeviceError& error) {
      std::cout << "trapped: " << error.what() << "\n";
      return 0;
    }
    std::cout << "no trap: the kernel completed with valid_items = " << value << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cout << "trap check could not run: " << error.what() << "\n";
    return 4;
  }
}

TrapOutcome check_trap(const std::string& work_dir, long long value, double timeout_seconds) {
  const std::string log = work_dir + "/trap_" + std::to_string(value) + ".log";
  const int status =
      wait_for(spawn_self({"--trap-check", work_dir, std::to_string(value), std::to_string(timeout_seconds)}, log));
  TrapOutcome outcome;
  outcome.ok = status == 0;
  outcome.detail = tail(read_text(log), 8);
  if (!outcome.ok) outcome.detail += "\n(child exit status " + std::to_string(status) + ")";
  return outcome;
}

}  // namespace coop::gpu_test
