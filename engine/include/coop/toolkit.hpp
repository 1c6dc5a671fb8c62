// toolkit: where NVRTC, nvJitLink, the CUDA headers and the CCCL headers are,
// their versions, and a digest of the header tree (the toolkit identity).
#pragma once

#include <string>
#include <vector>

namespace coop {

struct ToolkitSearch {
  std::string cccl_root;                 // explicit header root holding cub/ (else CUDA_COOP_CCCL_ROOT)
  std::string cuda_home;                 // explicit toolkit root (else CUDA_HOME, CUDA_PATH)
  std::vector<std::string> wheel_roots;  // site-packages/nvidia dirs from the Python layer

  static ToolkitSearch from_environment();
};

struct Toolkit {
  std::string nvrtc_library;      // absolute path of libnvrtc.so.N
  std::string nvjitlink_library;  // absolute path of libnvJitLink.so.N
  std::string cuda_include;       // has cuda_fp16.h
  std::string cccl_include;       // has cub/, cuda/, nv/
  std::string nvrtc_version;      // "13.0"
  std::string nvjitlink_version;  // "13.0"
  std::string cccl_version;       // "3.0.1" from CUB_VERSION
  std::string header_digest;      // digest of the CCCL and CUDA header trees
  std::string identity;           // digest of everything above that shapes code

  // Throws coop::Error(Toolkit) listing every place it looked.
  static Toolkit locate(const ToolkitSearch& search);
};

}  // namespace coop
