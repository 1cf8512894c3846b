// model/names.cpp: pin ids, listing names, working-ref names and slugs, owner marker.
#include "tether/model/names.hpp"

#include <charconv>

#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/support/canonical_json.hpp"

namespace tether::model {
namespace {

constexpr std::string_view kPinPrefix = "tether.";
constexpr std::string_view kWorkingPrefix = "tether.ws.";
constexpr std::string_view kOwnerPrefix = "tether.owner.";

std::string identity_digest(std::string_view kind, const Json& identity, const Json& content_state) {
  const std::string k = support::canonical_json(Json(std::string(kind)));
  const std::string i = support::canonical_json(identity);
  const std::string s = support::canonical_json(content_state);
  return framed_blake2b({k, i, s}, 16);
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool slug_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-';
}

std::string strip_dashes(const std::string& s) {
  const auto b = s.find_first_not_of('-');
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of('-');
  return s.substr(b, e - b + 1);
}

std::string_view prefix_of(std::string_view s, std::size_t n) { return s.substr(0, std::min(n, s.size())); }

}  // namespace

std::string pin_id(std::string_view dataset_id, std::string_view kind, const Json& identity, const Json& content_state) {
  return std::string(prefix_of(dataset_id, 8)) + "." + identity_digest(kind, identity, content_state).substr(0, 16);
}

std::string pin_ref(std::string_view id) { return std::string(kPinPrefix) + std::string(id); }

std::optional<std::string> pin_dataset(std::string_view id) {
  const auto dot = id.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto ds = id.substr(0, dot);
  const auto rest = id.substr(dot + 1);
  if (!is_dataset_id(ds) || rest.empty() || rest.find('.') != std::string_view::npos) return std::nullopt;
  return std::string(ds);
}

std::optional<std::string> pin_id_of_ref(std::string_view ref) {
  if (ref.substr(0, kPinPrefix.size()) != kPinPrefix) return std::nullopt;
  std::string_view rest = ref.substr(kPinPrefix.size());
  const auto d1 = rest.find('.');
  if (d1 != std::string_view::npos) {
    const auto d2 = rest.find('.', d1 + 1);
    if (d2 != std::string_view::npos && rest.find('.', d2 + 1) == std::string_view::npos &&
        all_digits(rest.substr(d2 + 1)))
      rest = rest.substr(0, d2);
  }
  if (!pin_dataset(rest)) return std::nullopt;
  return std::string(rest);
}

std::string listing_name(std::string_view kind, const Json& identity, const Json& content_state) {
  return identity_digest(kind, identity, content_state).substr(0, 20) + ".jsonl";
}

std::string bookmark_slug(std::string_view bookmark) {
  std::string replaced;
  bool in_run = false;
  for (char c : bookmark) {
    if (slug_char(c)) {
      replaced += c;
      in_run = false;
    } else if (!in_run) {
      replaced += '-';
      in_run = true;
    }
  }
  std::string slug = strip_dashes(replaced);
  if (slug == bookmark) return slug;
  const std::string cb = support::canonical_json(Json(std::string(bookmark)));
  return (slug.empty() ? std::string("bm") : slug) + "-" + framed_blake2b({cb}, 8).substr(0, 6);
}

std::string working_ref_name(std::string_view dataset_id, std::string_view bookmark) {
  return std::string(kWorkingPrefix) + std::string(prefix_of(dataset_id, 8)) + "." + bookmark_slug(bookmark);
}

std::optional<WorkingRefParts> parse_working_ref(std::string_view ref) {
  if (ref.substr(0, kWorkingPrefix.size()) != kWorkingPrefix) return std::nullopt;
  const std::string_view after = ref.substr(kWorkingPrefix.size());
  const auto dot = after.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  WorkingRefParts parts;
  const std::string_view ds = after.substr(0, dot);
  std::string_view rest = after.substr(dot + 1);
  if (!is_dataset_id(ds) || rest.empty()) return std::nullopt;
  parts.dataset_id = std::string(ds);
  // `^(.+)\.([0-9]+)$`: a generation suffix after a non-empty head.
  const auto last = rest.rfind('.');
  if (last != std::string_view::npos && last > 0 && all_digits(rest.substr(last + 1))) {
    const auto digits = rest.substr(last + 1);
    int64_t n = 0;
    const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (res.ec == std::errc()) parts.generation = n;
    rest = rest.substr(0, last);
  }
  const auto inner = rest.find('.');
  if (inner != std::string_view::npos && is_lower_hex(rest.substr(0, inner), 8)) {
    parts.workspace = std::string(rest.substr(0, inner));
    parts.tail = std::string(rest.substr(inner + 1));
  } else {
    parts.tail = std::string(rest);
  }
  return parts;
}

std::string slugify_key(std::string_view key) {
  std::string replaced;
  bool in_run = false;
  for (char c : key) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (alnum) {
      replaced += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      in_run = false;
    } else if (!in_run) {
      replaced += '-';
      in_run = true;
    }
  }
  std::string slug = strip_dashes(replaced);
  return slug.empty() ? "obj" : slug;
}

std::string key_digest6(std::string_view key) {
  const std::string cb = support::canonical_json(Json(std::string(key)));
  return framed_blake2b({cb}, 8).substr(0, 6);
}

std::string owner_ref(std::string_view dataset_id) { return std::string(kOwnerPrefix) + std::string(dataset_id); }

std::optional<std::string> owner_from_ref(std::string_view ref) {
  if (ref.substr(0, kOwnerPrefix.size()) != kOwnerPrefix) return std::nullopt;
  return std::string(ref.substr(kOwnerPrefix.size()));
}

}  // namespace tether::model
