// Crockford base32 ids (docs/backends.md#icechunk).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "ids.hpp"

using namespace tether::icechunk;

TEST_CASE("the two test vectors of the format description") {
  std::vector<uint8_t> a{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK(encode_id(a.data(), a.size()) == "000G40R40M30E209185G");
  std::vector<uint8_t> b{0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34};
  CHECK(encode_id(b.data(), b.size()) == kInitialSnapshotId);
  CHECK(decode_id(kInitialSnapshotId, 12) == b);
  CHECK(decode_id("000G40R40M30E209185G", 12) == a);
}

TEST_CASE("node ids are 8 bytes in 13 symbols") {
  std::vector<uint8_t> n{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88};
  std::string text = encode_id(n.data(), n.size());
  CHECK(text.size() == 13);
  CHECK(decode_id(text, 8) == n);
}

TEST_CASE("decoding: lower case and the Crockford aliases, nothing else") {
  CHECK(decode_id("1cechnkrep0f1rstcmt0", 12).has_value());
  CHECK(decode_id("1CECHNKREPOF1RSTCMT0", 12) == decode_id(kInitialSnapshotId, 12));  // O for 0
  CHECK_FALSE(decode_id("1CECHNKREP0F1RSTCMTU", 12).has_value());                      // U is not a symbol
  CHECK_FALSE(decode_id("1CECHNKREP0F1RSTCMT", 12).has_value());                       // too short
  CHECK_FALSE(decode_id("1CECHNKREP0F1RSTCMT1", 12).has_value());                      // padding bits set
  CHECK(is_id12(kInitialSnapshotId));
  CHECK_FALSE(is_id12("1cechnkrep0f1rstcmt0"));  // not as Icechunk writes it
  CHECK_FALSE(is_id12("ref.json"));
}
