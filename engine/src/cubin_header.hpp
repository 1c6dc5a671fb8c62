// cubin_header: what a cubin's ELF header says about it, read before nvJitLink sees it. nvJitLink
// drops an executable cubin without a word (exit 0, an output without its kernels), so the link
// refuses one itself, and names the arch of one built for another.
#pragma once

#include <optional>
#include <vector>

namespace coop {

struct CubinHeader {
  bool relocatable = false;  // ET_REL: built with -rdc=true (or -dc), so a link can use it
  int sm = 0;                // 90 for sm_90 (sm_90a too)
};

// nullopt when `bytes` is not a 64-bit CUDA ELF file (nvJitLink then reports what it is).
std::optional<CubinHeader> read_cubin_header(const std::vector<char>& bytes);

}  // namespace coop
