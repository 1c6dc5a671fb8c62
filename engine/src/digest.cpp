#include "coop/digest.hpp"

#include <algorithm>

namespace coop {

namespace {

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
constexpr std::array<std::uint32_t, 8> kInitial = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

}  // namespace

Sha256::Sha256() : state_(kInitial) {}

void Sha256::compress(const unsigned char* block) {
  std::array<std::uint32_t, 64> w{};
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t{block[4 * i]} << 24 | std::uint32_t{block[4 * i + 1]} << 16 |
           std::uint32_t{block[4 * i + 2]} << 8 | std::uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = state_;
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const std::array<std::uint32_t, 8> mixed = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state_[i] += mixed[i];
}

Sha256& Sha256::update(std::string_view bytes) {
  total_bytes_ += bytes.size();
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t size = bytes.size();
  while (size > 0) {
    const std::size_t taken = std::min(size, pending_.size() - pending_size_);
    std::copy_n(data, taken, pending_.data() + pending_size_);
    pending_size_ += taken;
    data += taken;
    size -= taken;
    if (pending_size_ == pending_.size()) {
      compress(pending_.data());
      pending_size_ = 0;
    }
  }
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
