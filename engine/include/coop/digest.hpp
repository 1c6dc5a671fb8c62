// SHA-256 (FIPS 180-4) for cache keys, symbols and checksums. Self-contained, so the engine and
// the wheels built from it link no crypto library.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace coop {

class Sha256 {
 public:
  Sha256();

  Sha256& update(std::string_view bytes);
  // Length-prefixed, so ("ab","c") and ("a","bc") differ.
  Sha256& field(std::string_view bytes);
  std::string hex();  // finalizes

 private:
  void compress(const unsigned char* block);

  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> pending_{};
  std::size_t pending_size_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace coop
