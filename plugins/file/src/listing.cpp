#include "listing.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

#include "hashing.hpp"
#include "tether/sdk/error.hpp"
#include "walk.hpp"
#include "tether/sdk/json_limits.hpp"
#include "tether/support/json_escape.hpp"

namespace tether::file {

void sort_rows(Rows& rows) {
  // std::string compares as unsigned bytes: UTF-8 byte order is code point order, which is
  // how Python sorts str.
  auto less = [](const Row& x, const Row& y) {
    int c = x.path.compare(y.path);
    return c != 0 ? c < 0 : x.token < y.token;
  };
  if (!std::is_sorted(rows.begin(), rows.end(), less)) std::sort(rows.begin(), rows.end(), less);
}

namespace {

void append_row(std::string& out, std::string_view path, std::string_view token, int64_t size) {
  char num[24];
  out += "{\"p\":";
  support::append_json_string(out, path, support::JsonEscape::python_ascii);
  out += ",\"k\":";
  support::append_json_string(out, token, support::JsonEscape::python_ascii);
  out += ",\"s\":";
  auto res = std::to_chars(num, num + sizeof num, size);
  out.append(num, res.ptr);
  out += "}\n";
}

}  // namespace

std::string render_listing(const Rows& rows) {
  std::string out;
  out.reserve(rows.size() * 112);
  for (const Row& r : rows) append_row(out, r.path, r.token, r.size);
  return out;
}

std::string render_listing(const WalkTree& tree) {
  std::string out;
  out.reserve(tree.rows() * 112);
  char token[8 + 64];
  std::memcpy(token, "symlink:", 8);
  tree.each([&](std::string_view rel, const WalkChild& c) {
    hex_into(c.sha256.data(), c.sha256.size(), token + 8);
    if (c.kind == WalkChild::kFile)
      append_row(out, rel, std::string_view(token + 8, 64), static_cast<int64_t>(c.stat.size));
    else
      append_row(out, rel, std::string_view(token, sizeof token), 0);
  });
  return out;
}

std::vector<std::pair<std::string, ListedFile>> parse_listing(const std::string& text, const char* side) {
  std::map<std::string, ListedFile> rows;
  std::size_t start = 0, line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos) continue;
    try {
      std::string why;
      auto parsed = sdk::parse_json_bounded(line, sdk::kMaxJsonDocumentBytes, &why);  // one line of a committed file
      if (!parsed) throw std::runtime_error(why);
      const sdk::Json& row = *parsed;
      ListedFile f;
      const auto& k = row.at("k");  // Python: str(row.get("k", ""))
      f.token = k.is_string() ? k.get<std::string>() : k.dump();
      f.size = state_int(row, "s");
      rows[row.at("p").get<std::string>()] = std::move(f);
    } catch (const std::exception& e) {
      throw sdk::BackendError(std::string("corrupt listing for side ") + side + " at line " +
                              std::to_string(line_no) + ": " + e.what());
    }
  }
  return {std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end())};
}

std::string human_size(int64_t n) {
  const char* sign = n < 0 ? "-" : "+";
  double value = std::fabs(static_cast<double>(n));
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  char buf[64];
  for (int i = 0; i < 5; ++i) {
    if (value < 1024 || i == 4) {
      if (i == 0) std::snprintf(buf, sizeof buf, "%s%.0f %s", sign, value, units[i]);
      else std::snprintf(buf, sizeof buf, "%s%.1f %s", sign, value, units[i]);
      return buf;
    }
    value /= 1024;
  }
  return buf;  // not reached
}

int64_t state_int(const sdk::State& s, const char* key, int64_t fallback) {
  auto it = s.find(key);
  if (it == s.end() || it->is_null()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float()) {
    // A state comes from a committed manifest: a float outside int64's range would make the
    // conversion undefined.
    double d = it->get<double>();
    if (d >= -9.2e18 && d <= 9.2e18) return static_cast<int64_t>(d);
  }
  if (it->is_string()) {
    const std::string& v = it->get_ref<const std::string&>();
    int64_t out = 0;
    auto res = std::from_chars(v.data(), v.data() + v.size(), out);
    if (res.ec == std::errc() && res.ptr == v.data() + v.size()) return out;
  }
  throw sdk::BackendError(std::string("state field '") + key + "' is not an integer: " + it->dump());
}

namespace {

// b - a, saturated: sizes come from listings and states a clone wrote, and may be anything.
int64_t delta(int64_t b, int64_t a) {
  int64_t d = 0;
  if (__builtin_sub_overflow(b, a, &d)) return b > a ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return d;
}

bool is_listed_type(const sdk::State& s) {
  std::string t = s.is_object() ? sdk::get_string(s, "type") : std::string();
  return t == "dir" || t == "prefix";
}

sdk::Json field(const sdk::State& s, const char* key) {
  auto it = s.find(key);
  return it == s.end() ? sdk::Json(nullptr) : *it;
}

// Python's str() of a JSON value as a state field prints it: None, ints, strings bare.
std::string py_str(const sdk::Json& v) {
  if (v.is_null()) return "None";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

sdk::ObjectDiff diff_listed(const sdk::State& a, const sdk::State& b, const std::optional<std::string>& la,
                            const std::optional<std::string>& lb) {
  sdk::ObjectDiff out;
  out.unit = "files";
  if (field(a, "digest") == field(b, "digest")) return out;
  if (!la || !lb) {
    out.note = std::string("no stored listing for side ") + (!la && !lb ? "a and b" : !la ? "a" : "b");
    out.add("(summary)", "modified",
            std::to_string(state_int(a, "count")) + " -> " + std::to_string(state_int(b, "count")) +
                " files, " + human_size(delta(state_int(b, "size"), state_int(a, "size"))));
    return out;
  }
  auto rows_a = parse_listing(*la, "a");
  auto rows_b = parse_listing(*lb, "b");
  // Both are sorted by path: one merge pass yields the union in order.
  std::size_t i = 0, j = 0;
  while (i < rows_a.size() || j < rows_b.size()) {
    int c = i == rows_a.size() ? 1 : j == rows_b.size() ? -1 : rows_a[i].first.compare(rows_b[j].first);
    if (c > 0) {
      out.add(rows_b[j].first, "added", human_size(rows_b[j].second.size));
      ++j;
    } else if (c < 0) {
      out.add(rows_a[i].first, "removed", human_size(delta(0, rows_a[i].second.size)));
      ++i;
    } else {
      if (!(rows_a[i].second == rows_b[j].second))
        out.add(rows_b[j].first, "modified", human_size(delta(rows_b[j].second.size, rows_a[i].second.size)));
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace

sdk::ObjectDiff diff_states(const std::string& uri, const sdk::State& a, const sdk::State& b,
                            const std::optional<std::string>& listing_a,
                            const std::optional<std::string>& listing_b) {
  if (is_listed_type(a) || is_listed_type(b)) return diff_listed(a, b, listing_a, listing_b);
  sdk::ObjectDiff out;
  out.unit = "objects";
  if (a == b) return out;
  std::string detail;
  auto append = [&](const std::string& part) {
    if (!detail.empty()) detail += ", ";
    detail += part;
  };
  auto va = field(a, "size"), vb = field(b, "size");
  if (va != vb) {
    if (!va.is_null() && !vb.is_null()) append("size " + human_size(delta(state_int(b, "size"), state_int(a, "size"))));
    else append("size " + py_str(va) + " -> " + py_str(vb));
  }
  va = field(a, "etag"), vb = field(b, "etag");
  if (va != vb) append("etag " + py_str(va) + " -> " + py_str(vb));
  va = field(a, "sha256"), vb = field(b, "sha256");
  if (va != vb) append("sha256 " + py_str(va).substr(0, 12) + " -> " + py_str(vb).substr(0, 12));
  va = field(a, "version_id"), vb = field(b, "version_id");
  if (va != vb) append("version " + py_str(va) + " -> " + py_str(vb));
  out.add(uri, "modified", detail);
  return out;
}

}  // namespace tether::file
