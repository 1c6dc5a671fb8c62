// Host side of one config: the arrays a launch starts from, and the check of what
// came back against the arrangement CUB documents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "matrix.hpp"

namespace coop::gpu_test {

using Bytes = std::vector<unsigned char>;

struct HostCase {
  Bytes source;                     // elements + guard, random (fixed seed per config)
  Bytes destination;                // elements + guard, all sentinel
  Bytes dump;                       // [block][thread rank][item], all dump sentinel
  std::vector<std::int64_t> valid;  // valid_items per group instance
  std::uint64_t oob_param = 0;      // bits of the kernel's oob operand
};

// Elements after the last tile, in both arrays: a write there is out of bounds.
long long guard_elements(const Config& config);

HostCase make_case(const Config& config);

// Empty when everything matches; otherwise one line per kind of mismatch, with
// the count, the first index, and expected vs got.
std::vector<std::string> verify(const Config& config, const HostCase& host, const Bytes& destination,
                                const Bytes& dump);

}  // namespace coop::gpu_test
