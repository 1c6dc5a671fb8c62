#include "build.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "coop/engine.hpp"
#include "kernel_source.hpp"
#include "process.hpp"

#ifndef COOP_NVCC
#define COOP_NVCC "nvcc"
#endif

namespace coop::gpu_test {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

bool claim(const std::string& work_dir, int index) {
  const int fd = ::open(batch_path(work_dir, index, ".claim").c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::vector<int> read_selection(const std::string& work_dir) {
  std::istringstream in(read_text(work_dir + "/selected"));
  std::vector<int> indices;
  for (int index; in >> index;) indices.push_back(index);
  return indices;
}

void write_selection(const std::string& work_dir, const std::vector<int>& indices) {
  std::string text;
  for (const int index : indices) text += std::to_string(index) + " ";
  write_bytes(work_dir + "/selected", text + "\n");
}

int count_built(const std::string& work_dir, const std::vector<int>& selected) {
  namespace fs = std::filesystem;
  int done = 0;
  for (const int index : selected) {
    if (fs::exists(batch_path(work_dir, index, ".cubin")) || fs::exists(batch_path(work_dir, index, ".error"))) ++done;
  }
  return done;
}

void build_batch(Engine& engine, const Batch& batch, const std::string& arch, const std::string& work_dir) {
  std::vector<Plan> plans;
  for (const Config& config : batch.configs) {
    plans.push_back(engine.plan(load_facts(config)));
    plans.push_back(engine.plan(store_facts(config)));
  }

  auto start = Clock::now();
  const Bundle bundle = engine.compile(plans, arch);
  const double bundle_seconds = seconds_since(start);
  write_bytes(batch_path(work_dir, batch.index, ".bundle.cu"), bundle.source);

  const std::string source_path = batch_path(work_dir, batch.index, ".cu");
  const std::string object_path = batch_path(work_dir, batch.index, ".o");
  write_bytes(source_path, kernel_source(batch, bundle.providers));
  start = Clock::now();
  const CommandResult nvcc = run_command(
      {nvcc_path(), "-std=c++17", "-arch=" + arch, "-rdc=true", "-dlto", "-c", source_path, "-o", object_path});
  const double nvcc_seconds = seconds_since(start);
  if (nvcc.exit_code != 0) {
    throw std::runtime_error("nvcc failed (exit " + std::to_string(nvcc.exit_code) + ") on " + source_path + ":\n" +
                             tail(nvcc.output, 40));
  }

  const LinkResult linked = link(engine.toolkit(),
                                 {{LinkInputKind::Object, read_bytes(object_path), "kernels (" + batch.title + ")"},
                                  {LinkInputKind::LtoIr, bundle.ltoir, "bundle (" + batch.title + ")"}},
                                 arch);
  write_bytes(batch_path(work_dir, batch.index, ".cubin"), linked.cubin);
  write_bytes(batch_path(work_dir, batch.index, ".info"),
              "bundle " + fixed(bundle_seconds) + " s (" + to_string(bundle.cache) + (bundle.used_pch ? ", pch" : "") +
                  "), nvcc " + fixed(nvcc_seconds) + " s, link " + fixed(linked.seconds) + " s");
}

}  // namespace

std::string batch_path(const std::string& work_dir, int index, const std::string& suffix) {
  char name[32];
  std::snprintf(name, sizeof name, "batch_%03d", index);
  return work_dir + "/" + name + suffix;
}

std::string nvcc_path() {
  const char* configured = std::getenv("COOP_NVCC");
  return configured != nullptr && *configured != '\0' ? configured : COOP_NVCC;
}

void build_batches(const std::string& work_dir, const std::string& arch, const std::vector<int>& selected, int jobs,
                   const std::function<bool()>& stop) {
  write_selection(work_dir, selected);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::clamp(jobs > 0 ? jobs : cores, 1, std::max(1, static_cast<int>(selected.size())));
  std::cout << "building " << selected.size() << " batches with " << jobs << " worker processes (nvcc " << nvcc_path()
            << ", arch " << arch << ")" << std::endl;
  const auto start = Clock::now();
  std::vector<pid_t> workers;
  for (int k = 0; k < jobs; ++k) {
    workers.push_back(
        spawn_self({"--build-worker", work_dir, arch}, work_dir + "/worker_" + std::to_string(k) + ".log"));
  }
  std::vector<bool> running(jobs, true);
  auto last_report = Clock::now();
  for (int left = jobs; left > 0;) {
    for (int k = 0; k < jobs; ++k) {
      int status = 0;
      if (!running[k] || !try_wait(workers[k], status)) continue;
      running[k] = false;
      --left;
      if (status != 0) {
        std::cout << "build worker " << k << " exited with status " << status << "; its log ends with:\n"
                  << tail(read_text(work_dir + "/worker_" + std::to_string(k) + ".log"), 20) << std::endl;
      }
    }
    if (left > 0 && stop()) {
      std::cout << "deadline reached while building: stopping the workers" << std::endl;
      for (int k = 0; k < jobs; ++k) {
        if (running[k]) ::kill(workers[k], SIGKILL);  // only the workers this process started
      }
      for (int k = 0; k < jobs; ++k) {
        if (running[k]) wait_for(workers[k]);
      }
      break;
    }
    if (seconds_since(last_report) >= 30) {
      last_report = Clock::now();
      std::cout << "  ... " << count_built(work_dir, selected) << "/" << selected.size() << " batches built ("
                << fixed(seconds_since(start)) << " s)" << std::endl;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cout << "built " << count_built(work_dir, selected) << "/" << selected.size() << " batches in "
            << fixed(seconds_since(start)) << " s" << std::endl;
}

int run_build_worker(const std::string& work_dir, const std::string& arch) {
  const std::vector<Batch> batches = test_batches();
  Engine engine(EngineConfig::from_environment("gpu_test"));
  for (const int index : read_selection(work_dir)) {
    if (index < 0 || index >= static_cast<int>(batches.size()) || !claim(work_dir, index)) continue;
    const auto start = Clock::now();
    try {
      build_batch(engine, batches[index], arch, work_dir);
      std::cout << "built batch " << index << " (" << batches[index].title << ") in " << fixed(seconds_since(start))
                << " s" << std::endl;
    } catch (const std::exception& error) {
      write_bytes(batch_path(work_dir, index, ".error"), std::string(error.what()));
      std::cout << "batch " << index << " (" << batches[index].title << ") failed: " << error.what() << std::endl;
    }
  }
  return 0;
}

}  // namespace coop::gpu_test
