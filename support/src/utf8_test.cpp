// Tests of support/utf8: the decoder's code points and lengths, and strict validation.
#include "tether/support/utf8.hpp"

#include <doctest/doctest.h>

using namespace tether::support;

TEST_CASE("decode gives code points and lengths, an invalid byte as itself") {
  CHECK(utf8::decode("a", 0).value == 'a');
  auto e = utf8::decode("\xc3\xa9", 0);
  CHECK((e.value == 0xE9 && e.length == 2 && e.valid));
  auto smile = utf8::decode("x\xf0\x9f\x98\x80", 1);
  CHECK((smile.value == 0x1F600 && smile.length == 4 && smile.valid));
  auto bad = utf8::decode("\xff", 0);
  CHECK((bad.value == 0xFF && bad.length == 1 && !bad.valid));
  auto cut = utf8::decode("\xe6\x97", 0);  // truncated: the lead byte alone
  CHECK((cut.value == 0xE6 && cut.length == 1 && !cut.valid));
}

TEST_CASE("UTF-8 validation is strict") {
  CHECK(utf8::valid("plain"));
  CHECK(utf8::valid("\xc3\xa9\xf0\x9f\x98\x80"));
  CHECK_FALSE(utf8::valid("\xff"));
  CHECK_FALSE(utf8::valid("\xc0\xaf"));      // overlong '/'
  CHECK_FALSE(utf8::valid("\xed\xa0\x80"));  // an encoded surrogate
  CHECK_FALSE(utf8::valid("\xc3"));          // truncated
  CHECK_FALSE(utf8::valid("\xf4\x90\x80\x80"));  // past U+10FFFF
}
