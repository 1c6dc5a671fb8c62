// toolkit: where NVRTC, nvJitLink, the CUDA headers and the CCCL headers are,
// their versions, and a digest of the header tree (the toolkit identity).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace coop {

// Where to look, most explicit first. A piece given by path (the CUDA_COOP_* variables, or the
// Python layer, which resolves each piece through cuda-pathfinder) is used as given or reported
// missing; the others are searched for in cuda_home, the wheel roots and /usr/local/cuda.
struct ToolkitSearch {
  std::string cccl_root;                 // explicit header root holding cub/ (else CUDA_COOP_CCCL_ROOT)
  std::string nvrtc_library;             // explicit libnvrtc.so.N (else CUDA_COOP_NVRTC_LIBRARY)
  std::string nvjitlink_library;         // explicit libnvJitLink.so.N (else CUDA_COOP_NVJITLINK_LIBRARY)
  std::string cuda_include;              // explicit directory holding cuda_fp16.h (else CUDA_COOP_CUDA_INCLUDE)
  std::string cuda_home;                 // explicit toolkit root (else CUDA_HOME, CUDA_PATH)
  std::vector<std::string> wheel_roots;  // site-packages/nvidia dirs from the Python layer
  // A header tree named by CUDA_COOP_CCCL_ROOT or CUDA_COOP_CUDA_INCLUDE (a checkout being
  // edited, perhaps): digested by every process, never taken from a note.
  bool headers_named = false;

  static ToolkitSearch from_environment();
};

// Where the header digest a process made is kept for the next ones (the engine's disk cache:
// DiskCache::load_note and store_note). The digest stats every header, some 2000 files; a
// note lets a process stat a dozen instead (HeaderStamp in toolkit.cpp).
struct HeaderNotes {
  std::function<std::optional<std::string>(const std::string& name)> load;
  std::function<void(const std::string& name, const std::string& text)> store;
};

struct Toolkit {
  std::string nvrtc_library;      // absolute path of libnvrtc.so.N
  std::string nvjitlink_library;  // absolute path of libnvJitLink.so.N
  std::string cuda_include;       // has cuda_fp16.h
  std::string cccl_include;       // has cub/, cuda/, nv/
  std::string cccl_version;       // "3.0.1" from CUB_VERSION
  std::string header_digest;      // digest of the CCCL and CUDA header trees
  // Digest of everything above that shapes code; the libraries count by path, size
  // and modification time, so locating them loads neither (a disk-cache hit needs no NVRTC).
  std::string identity;

  // Throws coop::Error(Toolkit) listing every place it looked. With `notes`, the CCCL version
  // and header digest come from the note of an earlier process while the trees' stamp still
  // matches it (and are noted for the next process when they had to be made).
  static Toolkit locate(const ToolkitSearch& search, const HeaderNotes* notes = nullptr);

  // "13.0": these load the library the first time.
  std::string nvrtc_version() const;
  std::string nvjitlink_version() const;
};

}  // namespace coop
