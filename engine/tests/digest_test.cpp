#include "coop/digest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>

#include "sha256_blocks.hpp"

namespace coop {
namespace {

// FIPS 180-2 test vectors.
TEST(Digest, EmptyInput) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Digest, Abc) { EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); }

TEST(Digest, IncrementalUpdatesEqualOneShot) {
  const std::string message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(Sha256().update(message.substr(0, 10)).update(message.substr(10)).hex(),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// Messages whose padding lands on each side of a 64-byte block boundary (values from Python's
// hashlib), and the FIPS one-million-'a' vector fed in uneven pieces.
TEST(Digest, PaddingAtBlockBoundaries) {
  const std::pair<std::size_t, const char*> cases[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
      {128, "24da1b81d0b16df6428eee73c69fcb2a93c76bc6df706f0c6670fe6bfe800464"},
  };
  for (const auto& [size, expected] : cases) EXPECT_EQ(sha256_hex(std::string(size, 'x')), expected) << size;
}

TEST(Digest, OneMillionAInUnevenPieces) {
  Sha256 digest;
  const std::string piece(997, 'a');
  std::size_t left = 1000000;
  while (left > 0) {
    const std::size_t taken = std::min(left, piece.size());
    digest.update(std::string_view(piece).substr(0, taken));
    left -= taken;
  }
  EXPECT_EQ(digest.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// The SHA-extension compression against the portable one, block runs of every count up to 40
// and one of a megabyte, from random bytes and a random starting state.
TEST(Digest, ShaExtensionsAgreeWithPortable) {
  const sha256_blocks::Compress accelerated = sha256_blocks::accelerated();
  if (accelerated == nullptr) GTEST_SKIP() << "this CPU (or build) has no SHA extensions";
  EXPECT_EQ(sha256_blocks::chosen(), accelerated);
  std::mt19937 random(2026);
  std::string bytes(1 << 20, '\0');
  for (char& byte : bytes) byte = static_cast<char>(random());
  const auto* blocks = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::size_t count :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{40}, bytes.size() / 64}) {
    sha256_blocks::State fast{}, slow{};
    for (std::size_t i = 0; i < fast.size(); ++i) fast[i] = slow[i] = static_cast<std::uint32_t>(random());
    accelerated(fast, blocks + 64 * (count % 3), std::min(count, bytes.size() / 64 - 1));
    sha256_blocks::portable(slow, blocks + 64 * (count % 3), std::min(count, bytes.size() / 64 - 1));
    EXPECT_EQ(fast, slow) << count << " blocks";
  }
}

// Pieces of every length from 0 to 200 bytes, fed one after another: the pending block and the
// whole blocks read straight from the input meet at every offset (the value from Python's hashlib).
TEST(Digest, PiecesOfEveryLengthEqualOneShot) {
  std::string message;
  Sha256 pieces;
  for (std::size_t length = 0; length <= 200; ++length) {
    const std::string piece(length, static_cast<char>('a' + length % 26));
    pieces.update(piece);
    message += piece;
  }
  EXPECT_EQ(pieces.hex(), sha256_hex(message));
  EXPECT_EQ(sha256_hex(message), "e76e0bdbb310f7b2426998cd5c8a096aecbe2eee2a46beeffa05592ddc030530");
}

TEST(Digest, FieldFramingSeparatesBoundaries) {
  const std::string ab_c = Sha256().field("ab").field("c").hex();
  const std::string a_bc = Sha256().field("a").field("bc").hex();
  EXPECT_NE(ab_c, a_bc);
  EXPECT_NE(ab_c, sha256_hex("abc"));
  EXPECT_EQ(ab_c, Sha256().field("ab").field("c").hex());
}

TEST(Digest, FieldPrefixIsEightByteLittleEndianLength) {
  const std::string framed = std::string("\x03\0\0\0\0\0\0\0", 8) + "abc";
  EXPECT_EQ(Sha256().field("abc").hex(), sha256_hex(framed));
}

TEST(Digest, HexIsLowercase) {
  const std::string text = sha256_hex("coop");
  EXPECT_EQ(text.size(), 64u);
  EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos);
}

// RFC 4231 section 4 (test case 5 truncates the output, which the cache never does).
TEST(Hmac, Rfc4231Vectors) {
  const std::string long_key(131, '\xaa');
  std::string key_25;  // 0x01, 0x02, ... 0x19
  for (char byte = 1; byte <= 25; ++byte) key_25.push_back(byte);
  const struct {
    std::string key, message;
    const char* mac;
  } cases[] = {
      {std::string(20, '\x0b'), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {key_25, std::string(50, '\xcd'), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {long_key, "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {long_key,
       "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be "
       "hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const auto& [key, message, mac] : cases) EXPECT_EQ(hmac_sha256_hex(key, message), mac) << message;
}

TEST(Hmac, IncrementalUpdatesEqualOneShot) {
  const std::string key(32, '\x42');
  const std::string message(1000, 'm');
  EXPECT_EQ(HmacSha256(key).update(message.substr(0, 333)).update(message.substr(333)).hex(),
            hmac_sha256_hex(key, message));
}

TEST(Hmac, AnotherKeyGivesAnotherMac) {
  EXPECT_NE(hmac_sha256_hex(std::string(32, 'a'), "entry"), hmac_sha256_hex(std::string(32, 'b'), "entry"));
  EXPECT_NE(hmac_sha256_hex(std::string(32, 'a'), "entry"), sha256_hex("entry"));
}

}  // namespace
}  // namespace coop
