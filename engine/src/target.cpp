#include "coop/target.hpp"

#include "coop/compile.hpp"

namespace coop {
namespace {

constexpr int kKiB = 1024;

// The per-block opt-in limits of the CUDA C++ Programming Guide's table of
// technical specifications, which cuda_occupancy.h's carveout steps agree with
// (one KiB of each SM's carveout is reserved for the system): 8.7 (Orin) has the
// 164 KiB carveout of 8.0, 8.6, 8.8 and 8.9 the 100 KiB one, 11.0 that of 10.x.
int known_limit(int arch) {
  switch (arch) {
    case 50:
    case 52:
    case 53:
    case 60:
    case 61:
    case 62:
      return 48 * kKiB;
    case 70:
    case 72:
      return 96 * kKiB;
    case 75:
      return 64 * kKiB;
    case 80:
    case 87:
      return 163 * kKiB;
    case 86:
    case 88:
    case 89:
    case 120:
    case 121:
      return 99 * kKiB;
    case 90:
    case 100:
    case 101:
    case 103:
    case 110:
      return 227 * kKiB;
    default:
      return 0;
  }
}

}  // namespace

int max_shared_memory_per_block(const std::string& arch) {
  const int limit = known_limit(parse_arch(arch, "max_shared_memory_per_block"));
  // An arch newer than this table: 48 KiB is safe on every GPU; refusing more
  // scratch there than it could hold errs on the side of a clear compile-time error.
  return limit != 0 ? limit : 48 * kKiB;
}

}  // namespace coop
