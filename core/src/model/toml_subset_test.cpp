// Tests of the subset reader (toml_subset.hpp) against toml++ itself: whatever the subset
// reader accepts, toml++ must accept and read the same; what tether writes, it must accept;
// and parse_toml's answer (a document or a ConfigError) is toml++'s in every case.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "model/toml_subset.hpp"
#include "tether/errors.hpp"
#include "tether/model/json.hpp"
#include "tether/model/toml.hpp"

using tether::ConfigError;

using namespace tether::model;

namespace {

// parse_toml and toml++ alone agree: the same document, or the same error.
void check_parse_toml_is_reference(const std::string& text) {
  std::optional<Json> ref;
  std::string ref_error;
  try {
    ref = parse_toml_reference(text, "t.toml");
  } catch (const ConfigError& e) {
    ref_error = e.what();
  }
  try {
    Json got = parse_toml(text, "t.toml");
    INFO("text: ", text);
    REQUIRE(ref);
    CHECK(got == *ref);
  } catch (const ConfigError& e) {
    INFO("text: ", text);
    CHECK_FALSE(ref);
    CHECK(std::string(e.what()) == ref_error);
  }
}

// When the subset reader accepts `text`, toml++ accepts it too and reads the same.
bool check_subset_agrees(const std::string& text) {
  auto sub = parse_toml_subset(text);
  if (!sub) return false;
  INFO("text: ", text);
  try {
    CHECK(*sub == parse_toml_reference(text, "t.toml"));
  } catch (const ConfigError& e) {
    FAIL("the subset reader accepted what toml++ refuses (", e.what(), ")");
  }
  return true;
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  Json table(int depth) {
    Json t = Json::object();
    for (int n = pick(5); n > 0; --n) t[key()] = value(depth);
    return t;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }

  std::string key() {
    static const std::vector<std::string> keys = {"key", "kind", "a", "B_2", "x-y", "0", "a b", "a.b", "",
                                                  "\xC3\xA9t\xC3\xA9", "q\"uote", "tab\there", "back\\slash", "[h]"};
    return keys[pick(static_cast<int>(keys.size()))];
  }

  std::string text() {
    static const std::vector<std::string> pieces = {"abc", " ", "\"", "\\", "\n", "\t", "\r", "\x01", "\x7F", "#",
                                                    "=", "[", "]", "{", "}", ",", "\xC3\xA9", "\xE2\x82\xAC",
                                                    "\xF0\x9F\x98\x80", "\xEF\xBF\xBF", "'", "$", "\\u0041", "/tmp/x"};
    std::string s;
    for (int n = pick(6); n > 0; --n) s += pieces[pick(static_cast<int>(pieces.size()))];
    return s;
  }

  Json value(int depth) {
    switch (pick(depth > 2 ? 6 : 8)) {
      case 0: case 1: return text();
      case 2: {
        static const std::vector<int64_t> ints = {0, 1, -1, 42, -999, 100000000000000000, 999999999999999999,
                                                  std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
        return ints[pick(static_cast<int>(ints.size()))];
      }
      case 3: return pick(2) == 0;
      case 4: return pick(10) == 0 ? Json(1.5) : Json(std::to_string(pick(1000)));
      case 5: return "2026-12-02T22:25:39+00:00";
      case 6: {
        Json a = Json::array();
        for (int n = pick(4); n > 0; --n) a.push_back(pick(3) == 0 ? table(depth + 1) : value(depth + 1));
        return a;
      }
      default: return table(depth + 1);
    }
  }

  std::mt19937_64 rng_;
};

std::string mutate(std::string s, std::mt19937_64& rng) {
  static const std::string alphabet = std::string("[]{}\".=, \n\\#-+_0123456789abeftuxU\t\r\x7F\x80\xC3\xA9\xED\xA0\xF4\x90'") +
                                      std::string(1, '\0');
  auto at = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
    switch (rng() % 5) {
      case 0:
        if (!s.empty()) s.erase(at(s.size()), 1);
        break;
      case 1: s.insert(at(s.size() + 1), 1, alphabet[at(alphabet.size())]); break;
      case 2:
        if (!s.empty()) s[at(s.size())] = alphabet[at(alphabet.size())];
        break;
      case 3: {  // a line again, elsewhere
        std::size_t a = at(s.size()), b = s.find('\n', a);
        std::size_t start = s.rfind('\n', a);
        start = start == std::string::npos ? 0 : start + 1;
        if (b == std::string::npos) break;
        s.insert(at(s.size() + 1), s.substr(start, b + 1 - start));
        break;
      }
      default: {  // a line cut out
        std::size_t a = at(s.size()), b = s.find('\n', a);
        if (b != std::string::npos) s.erase(a, b + 1 - a);
        break;
      }
    }
  }
  return s;
}

}  // namespace

TEST_CASE("the subset reader reads what dump_toml writes, as toml++ does") {
  Generator gen(20261202);
  int accepted = 0, total = 0;
  for (int i = 0; i < 400; ++i) {
    const Json doc = gen.table(0);
    const std::string text = dump_toml(doc);
    ++total;
    // Declined by design: floats, and integers of 19 digits (the int64 extremes).
    const bool outside = text.find("1.5") != std::string::npos || text.find("922337203685477580") != std::string::npos;
    if (check_subset_agrees(text)) ++accepted;
    else CHECK_MESSAGE(outside, "dump_toml wrote a document the subset reader declined:\n", text);
    check_parse_toml_is_reference(text);
  }
  CHECK(accepted > total / 2);
}

TEST_CASE("mutated documents: whatever the subset reader accepts, toml++ reads the same") {
  Generator gen(7);
  std::mt19937_64 rng(11);
  int accepted = 0;
  for (int i = 0; i < 150; ++i) {
    const std::string text = dump_toml(gen.table(0));
    for (int k = 0; k < 100; ++k) {
      const std::string m = mutate(text, rng);
      if (check_subset_agrees(m)) ++accepted;
      if (k % 10 == 0) check_parse_toml_is_reference(m);
    }
  }
  CHECK(accepted > 100);  // the comparison saw accepted documents, not only refusals
}

TEST_CASE("the subset reader's edges: what it reads and what it leaves to toml++") {
  const std::vector<std::string> read = {
      "",
      "a = 1\n",
      "a = 1",
      "a = -42\nb = true\nc = false\n",
      "a = 999999999999999999\n",
      "a = \"\\u00e9\\U0001F600\\t\\\"\\\\\\b\\f\\r\\n\"\n",
      "a = \"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"\n",
      "a = [1, [2, {}], { b = \"c\", d = [] }]\n",
      "\"a b\" = 1\n\n[\"x.y\".z]\nq = true\n\n[\"x.y\".w]\n",
      "key = \"k\"\n\n[locator]\nuri = \"/r\"\n\n[state]\nsha = \"abc\"\n\n[pin]\nid = \"1\"\n",
      "[a]\nx = 1\n\n[a.b]\ny = 2\n\n[a.c.d]\n",
      "\"\" = 1\n",
  };
  for (const auto& text : read) {
    INFO("text: ", text);
    CHECK(check_subset_agrees(text));
    check_parse_toml_is_reference(text);
  }
  const std::vector<std::string> declined = {
      "a = 1\r\n",                       // CRLF
      "# comment\na = 1\n",              // comment
      "a = 1 # comment\n",
      " a = 1\n",                         // indentation
      "a=1\n",                            // spacing
      "a = [ 1 ]\n",
      "a = {b = 1}\n",
      "a = 1.5\n",                        // floats, dates, other integer forms
      "a = 1e3\n",
      "a = inf\n",
      "a = 1979-05-27\n",
      "a = 1979-05-27T07:32:00Z\n",
      "a = 01\n",
      "a = -0\n",
      "a = +1\n",
      "a = 1_000\n",
      "a = 0x1F\n",
      "a = 9223372036854775807\n",        // 19 digits: toml++ decides
      "a = 'literal'\n",
      "a = \"\"\"multi\"\"\"\n",
      "a = \"tab\there\"\n",              // raw control characters
      "a = \"\\x41\"\n",                   // escapes TOML 1.0 does not have
      "a = \"\\e\"\n",
      "a = \"\\ud800\"\n",                 // surrogate, NUL, past U+10FFFF
      "a = \"\\u0000\"\n",
      "a = \"\\U00110000\"\n",
      "a = \"\xC0\xAF\"\n",                // overlong, surrogate, past U+10FFFF, truncated
      "a = \"\xED\xA0\x80\"\n",
      "a = \"\xF4\x90\x80\x80\"\n",
      "a = \"\xE2\x82\"\n",
      "a = \"open\n",
      "\xEF\xBB\xBF" "a = 1\n",          // byte order mark
      "a.b = 1\n",                        // dotted keys
      "'a' = 1\n",
      "[[a]]\nb = 1\n",                   // arrays of tables
      "[ a ]\n",
      "a = 1\na = 2\n",                   // redefinitions, valid or not
      "[a]\n[a]\n",
      "[a.b]\n[a]\n",
      "a = {}\n[a.b]\n",
      "a = { b = 1 }\n[a]\n",
      "[a]\nb = 1\n[a.b]\n",
      "a = { b = 1, b = 2 }\n",
      "a = 1\n[a.b]\n",
      "a = tru\n",
      "a = truex\n",
      "a =\n",
      "[a]x\n",
  };
  for (const auto& text : declined) {
    INFO("text: ", text);
    CHECK_FALSE(parse_toml_subset(text));
    check_parse_toml_is_reference(text);
  }
  // Nesting past the subset's bound goes to the depth scan and toml++, within theirs or not.
  for (std::size_t depth : {31, 33, 100, 200}) {
    const std::string text = "a = " + std::string(depth, '[') + std::string(depth, ']') + "\n";
    if (depth >= 32) CHECK_FALSE(parse_toml_subset(text));
    check_parse_toml_is_reference(text);
  }
}
