// tags.hpp's packed-refs reader: it vouches only for files libgit2 reads exactly as it does.
#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "tags.hpp"

namespace {

const std::string kA = "1111111111111111111111111111111111111111";
const std::string kB = "2222222222222222222222222222222222222222";
const std::string kPeel = "abcdefabcdefabcdefabcdefabcdefabcdef0123";

std::string hex_of(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

}  // namespace

TEST_CASE("parse_packed_refs: a strict file is every ref in it") {
  std::unordered_map<std::string_view, git_oid> refs;
  std::string text = "# pack-refs with: peeled fully-peeled sorted \n" + kA + " refs/heads/main\n" + kB +
                     " refs/tags/a\n^" + kPeel + "\n" + kA + " refs/tags/tether.x.y\n";
  REQUIRE(tether::git::parse_packed_refs(text, refs));
  REQUIRE(refs.size() == 3);
  CHECK(hex_of(refs.at("refs/heads/main")) == kA);
  CHECK(hex_of(refs.at("refs/tags/a")) == kB);  // the tag itself, not its peeled commit
  CHECK(hex_of(refs.at("refs/tags/tether.x.y")) == kA);
  CHECK(tether::git::parse_packed_refs("", refs));
  CHECK(refs.empty());
  CHECK(tether::git::parse_packed_refs("# pack-refs with: peeled\n# another comment\n", refs));
  CHECK(tether::git::parse_packed_refs(kA + " refs/tags/a\n", refs));  // no header: libgit2 parses it whole
  CHECK(refs.size() == 1);
}

TEST_CASE("parse_packed_refs: anything libgit2 might read otherwise is refused whole") {
  const std::string head = "# pack-refs with: peeled fully-peeled sorted \n";
  const std::string good = kA + " refs/tags/a\n";
  for (const std::string& bad : {
           head + kA + " refs/tags/b\n" + kA + " refs/tags/a\n",           // unsorted: the binary search misses
           head + good + good,                                              // a name twice
           head + good + "# a comment in the middle\n",                     // '#' after the first record
           head + kA + " refs/tags/a",                                      // no final newline
           head + kA + " refs/tags/a\r\n",                                  // CR: the two readers differ
           head + kA + " refs/tags/a b\n",                                  // a space in the name
           head + kA + " refs/tags/caf\xc3\xa9\n",                          // not ASCII
           head + kA + " \n",                                               // no name
           head + kA + "  refs/tags/a\n",                                   // two spaces
           head + "1111111111111111111111111111111111111111X refs/tags/a\n",  // 41 hex-ish characters
           head + "ABCDEF1111111111111111111111111111111111 refs/tags/a\n",  // upper-case hex
           head + kA.substr(0, 39) + " refs/tags/a\n",                      // a short id
           head + good + "^" + kPeel + "\n^" + kPeel + "\n",                // two peel lines
           head + good + "^" + kPeel,                                       // a peel line without newline
           head + good + "^" + kPeel.substr(0, 39) + "\n",                  // a short peel
           head + "^" + kPeel + "\n" + good,                                // a peel line first
           std::string("# pack-refs with: sorted") ,                        // a header without newline
           head + good.substr(0, 20) + std::string(1, '\0') + good.substr(20),  // a NUL
           "# x" + std::string(1, '\0') + "\n" + good,                      // a NUL in a comment
       }) {
    INFO(bad);
    std::unordered_map<std::string_view, git_oid> refs;
    CHECK_FALSE(tether::git::parse_packed_refs(bad, refs));
    CHECK(refs.empty());
  }
}

// plain_tag_name vouches for a name only when libgit2's lookup would take it unchanged: tried
// on the names of the git tests and on random names over an alphabet of the troublesome bytes.
TEST_CASE("plain_tag_name: only names libgit2 validates and leaves as they are") {
  git_libgit2_init();
  auto libgit2_keeps = [](const std::string& name) {
    char out[1024];
    return git_reference_normalize_name(out, sizeof out, name.c_str(), GIT_REFERENCE_FORMAT_ALLOW_ONELEVEL) == 0 &&
           name == out;
  };
  for (const std::string name : {"refs/tags/tether.674c83a5.abdfbcb0315a4575", "refs/tags/a", "refs/tags/a/b-c_D.9"})
    CHECK(tether::git::plain_tag_name(name));
  for (const std::string& name : std::vector<std::string>{"refs/tags/", "refs/tags//a", "refs/tags/a/", "refs/tags/.a", "refs/tags/a..b", "refs/tags/a.lock",
        "refs/tags/a.lock/b", "refs/tags/a.", "refs/tags/a@{1}", "refs/tags/a b", "refs/tags/a:b", "refs/heads/a",
        "tether.x", "refs/tags/../../etc/passwd", "refs/tags/caf\xc3\xa9", "refs/tags/" + std::string(600, 'f'),
        "refs/tags/" + std::string(200, 'f')})
    CHECK_FALSE(tether::git::plain_tag_name(name));
  const std::string alphabet = "ab.-_/@{}*?[\\:~^ A\x7f\x01\xc3";
  unsigned state = 12345;
  int plain = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string name = "refs/tags/";
    state = state * 1103515245u + 12345u;
    int len = 1 + static_cast<int>((state >> 16) % 12);
    for (int i = 0; i < len; ++i) {
      state = state * 1103515245u + 12345u;
      unsigned r = (state >> 16) % 100;
      name += r < 50 ? alphabet[r % 2] : alphabet[r % alphabet.size()];
    }
    if (tether::git::plain_tag_name(name)) {
      ++plain;
      INFO(name);
      CHECK(libgit2_keeps(name));
    }
  }
  CHECK(plain > 1000);  // the random names do exercise the accepting side
  git_libgit2_shutdown();
}
