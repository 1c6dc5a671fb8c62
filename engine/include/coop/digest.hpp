// SHA-256 (OpenSSL EVP) for cache keys, symbols and checksums.
#pragma once

#include <string>
#include <string_view>

namespace coop {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& update(std::string_view bytes);
  // Length-prefixed, so ("ab","c") and ("a","bc") differ.
  Sha256& field(std::string_view bytes);
  std::string hex();  // finalizes

 private:
  void* context_;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace coop
