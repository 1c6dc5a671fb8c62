#include "coop/digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace coop {

namespace {

EVP_MD_CTX* as_context(void* context) { return static_cast<EVP_MD_CTX*>(context); }

// OpenSSL only fails here on allocation failure or a broken provider; neither is recoverable.
void check(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("OpenSSL SHA-256: ") + what + " failed");
}

}  // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) throw std::runtime_error("OpenSSL SHA-256: EVP_MD_CTX_new failed");
  const int ok = EVP_DigestInit_ex(as_context(context_), EVP_sha256(), nullptr);
  if (ok != 1) {
    EVP_MD_CTX_free(as_context(context_));
    check(ok, "EVP_DigestInit_ex");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(as_context(context_)); }

Sha256& Sha256::update(std::string_view bytes) {
  check(EVP_DigestUpdate(as_context(context_), bytes.data(), bytes.size()), "EVP_DigestUpdate");
  return *this;
}

Sha256& Sha256::field(std::string_view bytes) {
  // Fixed-width little-endian length, so the framing does not depend on the host.
  std::array<char, 8> length{};
  std::uint64_t size = bytes.size();
  for (char& byte : length) {
    byte = static_cast<char>(size & 0xff);
    size >>= 8;
  }
  update(std::string_view(length.data(), length.size()));
  return update(bytes);
}

std::string Sha256::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  check(EVP_DigestFinal_ex(as_context(context_), digest.data(), &size), "EVP_DigestFinal_ex");
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * std::size_t{size});
  for (unsigned int i = 0; i < size; ++i) {
    text.push_back(kDigits[digest[i] >> 4]);
    text.push_back(kDigits[digest[i] & 0x0f]);
  }
  return text;
}

std::string sha256_hex(std::string_view bytes) { return Sha256().update(bytes).hex(); }

}  // namespace coop
