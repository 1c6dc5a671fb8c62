// The GPU through the CUDA driver API: one device's primary context, the
// current batch's module, and launches of the test kernels with a watchdog.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "matrix.hpp"

namespace coop::gpu_test {

// A failed driver call; `code` is the CUresult, named in what().
class DeviceError : public std::runtime_error {
 public:
  DeviceError(const std::string& message, int code) : std::runtime_error(message), code(code) {}
  int code;
};

// A kernel that did not finish in time. The context cannot be trusted afterwards.
class HangError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "CUDA_ERROR_ILLEGAL_INSTRUCTION (715): an illegal instruction was encountered"
std::string describe_result(int code);

class Device {
 public:
  explicit Device(int ordinal = 0);  // cuInit, then the device's primary context
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& arch() const { return arch_; }  // "sm_90"
  const std::string& description() const { return description_; }

  void load_module(const std::vector<char>& cubin);  // replaces the current one

  // Copies the host case in, launches `config`'s kernel with `valid` as its valid
  // list, waits at most `timeout_seconds`, and copies the destination and the dump
  // back. A DeviceError from a kernel leaves a fresh context with the module
  // reloaded, so the next launch starts clean.
  void run(const Config& config, const HostCase& host, const std::vector<std::int64_t>& valid, Bytes& destination,
           Bytes& dump, double timeout_seconds);

 private:
  struct Buffer {
    std::uint64_t pointer = 0;  // CUdeviceptr
    std::size_t bytes = 0;
  };
  void retain();
  void release();
  void recover();  // a new primary context after a sticky error
  std::uint64_t ensure(Buffer& buffer, std::size_t bytes);

  int device_ = 0;
  void* context_ = nullptr;  // CUcontext
  void* stream_ = nullptr;   // CUstream
  void* module_ = nullptr;   // CUmodule
  std::vector<char> cubin_;  // to reload after recover()
  Buffer source_, destination_, dump_, valid_;
  std::string arch_;
  std::string description_;
};

}  // namespace coop::gpu_test
