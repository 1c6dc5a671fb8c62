#include "device.hpp"

#include <cuda.h>

#include <chrono>
#include <thread>

namespace coop::gpu_test {
namespace {

void check(CUresult result, const std::string& what) {
  if (result != CUDA_SUCCESS) throw DeviceError(what + ": " + describe_result(result), result);
}

CUstream as_stream(void* stream) { return static_cast<CUstream>(stream); }

}  // namespace

std::string describe_result(int code) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(static_cast<CUresult>(code), &name);
  cuGetErrorString(static_cast<CUresult>(code), &text);
  if (name == nullptr && code == CUDA_ERROR_STUB_LIBRARY)
    name = "CUDA_ERROR_STUB_LIBRARY (the toolkit's stub libcuda, no driver)";
  return std::string(name != nullptr ? name : "CUresult") + " (" + std::to_string(code) + ")" +
         (text != nullptr ? std::string(": ") + text : std::string());
}

Device::Device(int ordinal) {
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
  device_ = device;
  int major = 0, minor = 0, driver = 0;
  check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "compute capability");
  check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "compute capability");
  check(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  char name[256] = {};
  check(cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  arch_ = "sm_" + std::to_string(major) + std::to_string(minor);
  description_ = std::string(name) + " (" + arch_ + "), driver API " + std::to_string(driver / 1000) + "." +
                 std::to_string(driver % 1000 / 10);
  retain();
}

Device::~Device() {
  try {
    release();
  } catch (...) {
  }
}

void Device::retain() {
  CUcontext context = nullptr;
  check(cuDevicePrimaryCtxRetain(&context, device_), "cuDevicePrimaryCtxRetain");
  context_ = context;
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  stream_ = stream;
  if (!cubin_.empty()) {
    CUmodule module = nullptr;
    check(cuModuleLoadData(&module, cubin_.data()), "cuModuleLoadData");
    module_ = module;
  }
}

void Device::release() {
  if (context_ == nullptr) return;
  // Best effort: after a sticky error these fail, and the context goes with the release anyway.
  if (module_ != nullptr) cuModuleUnload(static_cast<CUmodule>(module_));
  if (stream_ != nullptr) cuStreamDestroy(as_stream(stream_));
  for (Buffer* buffer : {&source_, &destination_, &dump_, &valid_}) {
    if (buffer->pointer != 0) cuMemFree(static_cast<CUdeviceptr>(buffer->pointer));
    *buffer = Buffer{};
  }
  module_ = stream_ = nullptr;
  cuDevicePrimaryCtxRelease(device_);  // the last reference: the context is reset
  context_ = nullptr;
}

void Device::recover() {
  release();
  retain();
}

void Device::load_module(const std::vector<char>& cubin) {
  if (module_ != nullptr) {
    cuModuleUnload(static_cast<CUmodule>(module_));
    module_ = nullptr;
  }
  cubin_ = cubin;
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, cubin_.data()), "cuModuleLoadData");
  module_ = module;
}

std::uint64_t Device::ensure(Buffer& buffer, std::size_t bytes) {
  if (buffer.bytes < bytes) {
    if (buffer.pointer != 0) cuMemFree(static_cast<CUdeviceptr>(buffer.pointer));
    buffer = Buffer{};
    CUdeviceptr pointer = 0;
    const std::size_t rounded = (bytes + 65535) / 65536 * 65536;
    check(cuMemAlloc(&pointer, rounded), "cuMemAlloc(" + std::to_string(rounded) + ")");
    buffer = {pointer, rounded};
  }
  return buffer.pointer;
}

void Device::run(const Config& config, const HostCase& host, const std::vector<std::int64_t>& valid, Bytes& destination,
                 Bytes& dump, double timeout_seconds) {
  if (module_ == nullptr) throw DeviceError("no module loaded", CUDA_ERROR_INVALID_HANDLE);
  CUfunction function = nullptr;
  check(cuModuleGetFunction(&function, static_cast<CUmodule>(module_), config.kernel_name().c_str()),
        "cuModuleGetFunction(" + config.kernel_name() + ")");

  CUdeviceptr source = ensure(source_, host.source.size());
  CUdeviceptr destination_pointer = ensure(destination_, host.destination.size());
  CUdeviceptr dump_pointer = ensure(dump_, host.dump.size());
  CUdeviceptr valid_pointer = ensure(valid_, valid.size() * sizeof(std::int64_t));
  check(cuMemcpyHtoD(source, host.source.data(), host.source.size()), "copy the source in");
  check(cuMemcpyHtoD(destination_pointer, host.destination.data(), host.destination.size()), "copy the destination in");
  check(cuMemcpyHtoD(dump_pointer, host.dump.data(), host.dump.size()), "copy the dump in");
  check(cuMemcpyHtoD(valid_pointer, valid.data(), valid.size() * sizeof(std::int64_t)), "copy the valid list in");

  // The copies above run on the legacy stream, which a CU_STREAM_DEFAULT stream waits for.
  // The kernel reads sizeof(its oob type) bytes: the low bytes of the little-endian word.
  std::uint64_t oob = host.oob_param;
  void* parameters[] = {&source, &destination_pointer, &dump_pointer, &valid_pointer, &oob};
  try {
    check(cuLaunchKernel(function, config.grid, 1, 1, config.block.x, config.block.y, config.block.z, 0,
                         as_stream(stream_), parameters, nullptr),
          "cuLaunchKernel(" + config.kernel_name() + ")");
    const auto start = std::chrono::steady_clock::now();
    CUresult status;
    while ((status = cuStreamQuery(as_stream(stream_))) == CUDA_ERROR_NOT_READY) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_seconds) {
        throw HangError(config.kernel_name() + " did not finish within " + std::to_string(timeout_seconds) + " s");
      }
      std::this_thread::yield();
    }
    check(status, "running " + config.kernel_name());
  } catch (const DeviceError& error) {
    // A fault in a kernel poisons the context: start a fresh one for the next config.
    std::string message = error.what();
    if (cuCtxSynchronize() != CUDA_SUCCESS) {
      try {
        recover();
      } catch (const std::exception& failure) {
        message += " (then a fresh context could not be set up: " + std::string(failure.what()) + ")";
      }
    }
    throw DeviceError(message, error.code);
  }
  destination.resize(host.destination.size());
  dump.resize(host.dump.size());
  check(cuMemcpyDtoH(destination.data(), destination_pointer, destination.size()), "copy the destination out");
  check(cuMemcpyDtoH(dump.data(), dump_pointer, dump.size()), "copy the dump out");
}

}  // namespace coop::gpu_test
