#include "coop/digest.hpp"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace coop
