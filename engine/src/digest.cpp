#include "coop/digest.hpp"

#include <algorithm>

#include "sha256_blocks.hpp"

namespace coop {

namespace {

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
constexpr std::array<std::uint32_t, 8> kInitial = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

}  // namespace

Sha256::Sha256() : state_(kInitial), compress_(sha256_blocks::chosen()) {}

Sha256& Sha256::update(std::string_view bytes) {
  total_bytes_ += bytes.size();
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t size = bytes.size();
  if (pending_size_ > 0) {  // complete the pending block first
    const std::size_t taken = std::min(size, pending_.size() - pending_size_);
    std::copy_n(data, taken, pending_.data() + pending_size_);
    pending_size_ += taken;
    data += taken;
    size -= taken;
    if (pending_size_ < pending_.size()) return *this;
    compress_(state_, pending_.data(), 1);
    pending_size_ = 0;
  }
  const std::size_t whole = size / pending_.size();
  if (whole > 0) compress_(state_, data, whole);  // straight from the input, no copy
  data += whole * pending_.size();
  size -= whole * pending_.size();
  std::copy_n(data, size, pending_.data());
  pending_size_ = size;
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

std::array<unsigned char, 32> Sha256::digest() {
  // Padding: a one bit, zeros up to 56 bytes mod 64, then the message length in bits, big-endian.
  const std::uint64_t bits = total_bytes_ * 8;
  update(std::string_view("\x80", 1));
  while (pending_size_ != 56) update(std::string_view("\0", 1));
  std::array<char, 8> length{};
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>(bits >> (56 - 8 * i));
  update(std::string_view(length.data(), length.size()));
  std::array<unsigned char, 32> bytes{};
  for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(state_[i / 4] >> (24 - 8 * (i % 4)));
  return bytes;
}

std::string Sha256::hex() {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(64);
  for (const unsigned char byte : digest()) {
    text.push_back(kDigits[byte >> 4]);
    text.push_back(kDigits[byte & 0xf]);
  }
  return text;
}

std::string sha256_hex(std::string_view bytes) { return Sha256().update(bytes).hex(); }

namespace {

std::string_view as_text(const unsigned char* bytes, std::size_t size) {
  return {reinterpret_cast<const char*>(bytes), size};
}

}  // namespace

// RFC 2104: H((K ^ opad) || H((K ^ ipad) || message)), K padded (or first hashed) to a block.
HmacSha256::HmacSha256(std::string_view key) {
  std::array<unsigned char, 64> block{};
  if (key.size() > block.size()) {
    const std::array<unsigned char, 32> hashed = Sha256().update(key).digest();
    std::copy(hashed.begin(), hashed.end(), block.begin());
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::array<unsigned char, 64> inner_pad{};
  for (std::size_t i = 0; i < block.size(); ++i) {
    inner_pad[i] = block[i] ^ 0x36;
    outer_pad_[i] = block[i] ^ 0x5c;
  }
  inner_.update(as_text(inner_pad.data(), inner_pad.size()));
}

HmacSha256& HmacSha256::update(std::string_view bytes) {
  inner_.update(bytes);
  return *this;
}

std::string HmacSha256::hex() {
  const std::array<unsigned char, 32> inner = inner_.digest();
  return Sha256()
      .update(as_text(outer_pad_.data(), outer_pad_.size()))
      .update(as_text(inner.data(), inner.size()))
      .hex();
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  return HmacSha256(key).update(message).hex();
}

}  // namespace coop
