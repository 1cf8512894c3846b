// model/toml_subset.cpp: the reader of dump_toml's shape (toml_subset.hpp says why and what).
// Each function returns false to decline; nothing here throws on input.
#include "model/toml_subset.hpp"

#include <cstdint>
#include <unordered_set>

namespace tether::model {
namespace {

// Arrays and inline tables inside a value, and segments of a header: dump_toml's manifests
// use 3 or 4. Deeper text goes to parse_toml's depth scan and toml++.
constexpr std::size_t kMaxDepth = 32;

bool is_bare(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class SubsetReader {
 public:
  explicit SubsetReader(std::string_view text) : s_(text) {}

  std::optional<Json> run() {
    Json root = Json::object();
    Json* table = &root;
    while (!at_end()) {
      if (eat('\n')) continue;
      if (s_[i_] == '[') {
        table = header(root);
        if (table == nullptr || !line_end()) return std::nullopt;
        continue;
      }
      std::string k;
      Json v;
      if (!key(k) || !eat(" = ") || !value(v, 1) || !line_end()) return std::nullopt;
      auto [it, fresh] = table->get_ref<Json::object_t&>().emplace(std::move(k), std::move(v));
      if (!fresh) return std::nullopt;                                 // a key given twice
      if (it->second.is_object()) inline_tables_.insert(&it->second);  // closed to later headers
    }
    return root;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  bool eat(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool eat(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool line_end() { return at_end() || eat('\n'); }

  // `[a.b."c d"]`: the table it names, made (with any missing parents) here. A name that
  // exists already, even as a parent made implicitly, is left to toml++ (TOML's rules for
  // defining such tables later are more than dump_toml ever needs).
  Json* header(Json& root) {
    if (!eat('[') || (!at_end() && s_[i_] == '[')) return nullptr;  // `[[...]]`: arrays of tables
    Json* t = &root;
    for (std::size_t segments = 1;; ++segments) {
      std::string k;
      if (segments > kMaxDepth || !key(k)) return nullptr;
      auto& obj = t->get_ref<Json::object_t&>();
      if (eat('.')) {
        auto it = obj.find(k);
        if (it == obj.end()) it = obj.emplace(std::move(k), Json::object()).first;
        else if (!it->second.is_object() || inline_tables_.count(&it->second)) return nullptr;
        t = &it->second;
        continue;
      }
      if (!eat(']') || obj.count(k)) return nullptr;
      return &obj.emplace(std::move(k), Json::object()).first->second;
    }
  }

  bool key(std::string& out) {
    if (!at_end() && s_[i_] == '"') return basic_string(out);
    const std::size_t start = i_;
    while (!at_end() && is_bare(s_[i_])) ++i_;
    if (i_ == start) return false;
    out.assign(s_.substr(start, i_ - start));
    return true;
  }

  bool value(Json& out, std::size_t depth) {
    if (at_end()) return false;
    switch (s_[i_]) {
      case '"': {
        std::string s;
        if (!basic_string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't': out = true; return eat("true");
      case 'f': out = false; return eat("false");
      case '[': return depth < kMaxDepth && array(out, depth);
      case '{': return depth < kMaxDepth && inline_table(out, depth);
      default: return integer(out);
    }
  }

  // `[]`, `[v]`, `[v, v]`: dump_toml's spacing only.
  bool array(Json& out, std::size_t depth) {
    ++i_;
    out = Json::array();
    if (eat(']')) return true;
    for (;;) {
      Json e;
      if (!value(e, depth + 1)) return false;
      out.push_back(std::move(e));
      if (eat(']')) return true;
      if (!eat(", ")) return false;
    }
  }

  // `{}`, `{ k = v }`, `{ k = v, k = v }`.
  bool inline_table(Json& out, std::size_t depth) {
    ++i_;
    out = Json::object();
    if (eat('}')) return true;
    if (!eat(' ')) return false;
    auto& obj = out.get_ref<Json::object_t&>();
    for (;;) {
      std::string k;
      Json v;
      if (!key(k) || !eat(" = ") || !value(v, depth + 1)) return false;
      if (!obj.emplace(std::move(k), std::move(v)).second) return false;
      if (eat(" }")) return true;
      if (!eat(", ")) return false;
    }
  }

  // Decimal, as std::to_string writes an int64: no sign but '-', no leading zero, no '_'.
  // Up to 18 digits, so it cannot overflow; the caller refuses whatever follows that is not
  // an end (`1.5`, `1e3`, `1979-05-27`, `0x1F`).
  bool integer(Json& out) {
    const bool negative = eat('-');
    const std::size_t start = i_;
    int64_t v = 0;
    while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (i_ - start == 18) return false;
      v = v * 10 + (s_[i_] - '0');
      ++i_;
    }
    const std::size_t digits = i_ - start;
    if (digits == 0 || (s_[start] == '0' && (digits > 1 || negative))) return false;
    out = negative ? -v : v;
    return true;
  }

  // A basic string: the escapes TOML 1.0 has and dump_toml writes (\uXXXX and \UXXXXXXXX
  // for a Unicode scalar other than NUL), printable ASCII, and valid UTF-8. No raw control
  // character, not even a tab; no multi-line string.
  bool basic_string(std::string& out) {
    ++i_;
    if (s_.substr(i_, 2) == "\"\"") return false;  // `"""`
    out.clear();
    while (!at_end()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c == '\\') {
        if (!escape(out)) return false;
        continue;
      }
      if (c < 0x20 || c == 0x7F) return false;
      if (c < 0x80) {
        out += static_cast<char>(c);
        ++i_;
        continue;
      }
      if (!utf8_sequence(out)) return false;
    }
    return false;
  }

  bool escape(std::string& out) {
    ++i_;
    if (at_end()) return false;
    const char e = s_[i_++];
    switch (e) {
      case 'b': out += '\b'; return true;
      case 't': out += '\t'; return true;
      case 'n': out += '\n'; return true;
      case 'f': out += '\f'; return true;
      case 'r': out += '\r'; return true;
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case 'u':
      case 'U': {
        const std::size_t n = e == 'u' ? 4 : 8;
        if (s_.size() - i_ < n) return false;
        uint32_t cp = 0;
        for (std::size_t k = 0; k < n; ++k) {
          const int h = hex_value(s_[i_ + k]);
          if (h < 0) return false;
          cp = cp * 16 + static_cast<uint32_t>(h);
        }
        i_ += n;
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
        append_utf8(out, cp);
        return true;
      }
      default: return false;
    }
  }

  // One UTF-8 sequence starting at a byte >= 0x80: no overlong form, no surrogate, nothing
  // past U+10FFFF.
  bool utf8_sequence(std::string& out) {
    const auto b0 = static_cast<unsigned char>(s_[i_]);
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
    else if (b0 == 0xE0) n = 3, lo = 0xA0;
    else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) n = 3;
    else if (b0 == 0xED) n = 3, hi = 0x9F;
    else if (b0 == 0xF0) n = 4, lo = 0x90;
    else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
    else if (b0 == 0xF4) n = 4, hi = 0x8F;
    else return false;
    if (s_.size() - i_ < n) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s_[i_ + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
    }
    out.append(s_.substr(i_, n));
    i_ += n;
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  // Tables given as `key = { ... }`: TOML closes them, so a header may not name or extend one.
  std::unordered_set<const Json*> inline_tables_;
};

}  // namespace

std::optional<Json> parse_toml_subset(std::string_view text) { return SubsetReader(text).run(); }

}  // namespace tether::model
