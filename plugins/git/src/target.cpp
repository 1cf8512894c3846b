#include "target.hpp"

#include <cctype>
#include <filesystem>
#include <system_error>

#include "tether/sdk/error.hpp"

namespace fs = std::filesystem;

namespace tether::git {

namespace {

std::optional<std::string> field(const sdk::Locator& loc, const char* key) {
  auto it = loc.find(key);
  if (it == loc.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw sdk::BackendError(std::string("git locator field '") + key + "' must be a string");
  return it->get<std::string>();
}

void refuse_option_like(const char* what, const std::optional<std::string>& value) {
  if (!value) return;
  if (value->empty()) throw sdk::BackendError(std::string("git ") + what + " is empty; refused");
  if ((*value)[0] == '-') throw sdk::BackendError(std::string("git ") + what + " '" + *value + "' looks like an option; refused");
}

bool truthy(const sdk::Json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<int64_t>() != 0;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s == "true" || s == "1" || s == "yes" || s == "on";
  }
  return false;
}

std::optional<std::string> raw_path(const sdk::Locator& loc) {
  auto p = field(loc, "path");
  if (!p || p->empty()) p = field(loc, "uri");
  if (p && p->empty()) return std::nullopt;
  return p;
}

}  // namespace

std::string resolve_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::path(path).lexically_normal();
  if (p.is_absolute()) {
    fs::path r = fs::weakly_canonical(p, ec);
    if (!ec) p = r;
  }
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

namespace {
template <class Resolve>
Target parse_target_with(const sdk::Locator& locator, Resolve&& resolve) {
  auto raw = raw_path(locator);
  if (!raw || raw->find("://") != std::string::npos)
    throw sdk::BackendError("git backend needs a local 'path' to a repository (url-only clones are not supported yet)");
  refuse_option_like("path", raw);
  if (!fs::path(*raw).is_absolute())
    throw sdk::BackendError("git path '" + *raw +
                            "' is not absolute; `tether add` stores absolute paths, so this manifest was written by "
                            "hand: write the absolute path");
  Target t;
  t.path = resolve(*raw);
  t.ref = field(locator, "ref");
  if (!t.ref) t.ref = field(locator, "branch");
  if (t.ref && t.ref->empty()) t.ref.reset();
  t.at = field(locator, "at");
  if (t.at && t.at->empty()) t.at.reset();
  t.remote = field(locator, "remote");
  if (t.remote && t.remote->empty()) t.remote.reset();
  refuse_option_like("ref", t.ref);
  refuse_option_like("at", t.at);
  refuse_option_like("remote", t.remote);
  auto it = locator.find("allow_dirty");
  t.allow_dirty = it != locator.end() && truthy(*it);
  return t;
}
}  // namespace

Target parse_target(const sdk::Locator& locator) { return parse_target_with(locator, resolve_path); }

Target parse_target(const sdk::Locator& locator, std::unordered_map<std::string, std::string>& resolved) {
  return parse_target_with(locator, [&](const std::string& raw) -> std::string {
    auto it = resolved.find(raw);
    if (it == resolved.end()) it = resolved.emplace(raw, resolve_path(raw)).first;
    return it->second;
  });
}

void refuse_inside_checkout(const Target& t, const std::string& checkout) {
  if (checkout.empty()) return;
  refuse_inside_root(t, resolve_path(checkout));
}

void refuse_inside_root(const Target& t, const std::string& resolved_root) {
  if (resolved_root.empty()) return;
  fs::path root = resolved_root;
  fs::path p = t.path;
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end() && q != p.end(); ++r, ++q)
    if (*r != *q) return;
  if (r != root.end()) return;  // p is shorter: an ancestor of the checkout, not inside
  throw sdk::BackendError("git path " + t.path + " is inside this dataset's checkout (" + root.string() +
                          "): its files came with the clone, and tether never acts on a repository a clone "
                          "brought; point the path at a repository outside " + root.string());
}

std::string identity_path(const sdk::Locator& locator) {
  auto raw = raw_path(locator);
  return raw ? resolve_path(*raw) : std::string();
}

std::string state_sha(const sdk::State& state) {
  std::string sha = state.is_object() ? sdk::get_string(state, "sha") : std::string();
  bool ok = sha.size() >= 4 && sha.size() <= 64;
  for (char c : sha)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) ok = false;
  if (!ok) throw sdk::BackendError("not a git commit id: '" + sha + "'");
  return sha;
}

}  // namespace tether::git
