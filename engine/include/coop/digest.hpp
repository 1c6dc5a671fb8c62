// SHA-256 (FIPS 180-4) for cache keys and symbols, and HMAC-SHA-256 (RFC 2104) for the
// cache's entries. Self-contained, so the engine and the wheels built from it link no crypto
// library.
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
  std::array<unsigned char, 32> digest();  // finalizes
  std::string hex();                       // finalizes

 private:
  std::array<std::uint32_t, 8> state_;
  // Compresses whole 64-byte blocks: with the CPU's SHA extensions where it has them.
  void (*compress_)(std::array<std::uint32_t, 8>& state, const unsigned char* blocks, std::size_t count);
  std::array<unsigned char, 64> pending_{};
  std::size_t pending_size_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

// A MAC proves who wrote a message: only a holder of `key` can make one that verifies.
class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key);

  HmacSha256& update(std::string_view bytes);
  std::string hex();  // finalizes

 private:
  std::array<unsigned char, 64> outer_pad_{};
  Sha256 inner_;
};

std::string hmac_sha256_hex(std::string_view key, std::string_view message);

}  // namespace coop
