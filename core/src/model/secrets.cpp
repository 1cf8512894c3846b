// model/secrets.cpp: reading secrets.toml.
#include "tether/model/secrets.hpp"

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/toml.hpp"
#include "tether/support/canonical_json.hpp"

namespace tether::model {
namespace fs = std::filesystem;

Json Secrets::table(const char* name) const {
  auto it = data_.find(name);
  if (it == data_.end() || !it->is_object()) return Json::object();
  return *it;
}

std::optional<std::string> Secrets::string_at(const char* tbl, const char* key) const {
  const Json t = table(tbl);
  auto it = t.find(key);
  if (it == t.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

Json Secrets::backend(std::string_view kind) const {
  const Json t = table("backends");
  auto it = t.find(std::string(kind));
  if (it == t.end() || !it->is_object()) return Json::object();
  return *it;
}

Json Secrets::object(std::string_view key) const {
  const Json t = table("objects");
  auto it = t.find(std::string(key));
  if (it == t.end() || !it->is_object()) return Json::object();
  return *it;
}

Secrets parse_secrets(std::string_view text, const std::string& source) {
  Json doc = parse_toml(text, source, /*redact=*/true);
  for (const char* name : {"vcs", "import", "backends", "uris", "objects"}) {
    auto it = doc.find(name);
    if (it != doc.end() && !it->is_object()) throw ConfigError(source + ": [" + name + "] must be a table");
  }
  for (const char* name : {"backends", "uris", "objects"}) {
    auto it = doc.find(name);
    if (it == doc.end()) continue;
    for (auto sub = it->begin(); sub != it->end(); ++sub)
      if (!sub->is_object())
        throw ConfigError(source + ": [" + name + "." + support::canonical_json(Json(sub.key())) + "] must be a table");
  }
  for (const auto& [tbl, key] : {std::pair{"vcs", "git_path"}, std::pair{"vcs", "jj_path"}, std::pair{"import", "query"}}) {
    auto t = doc.find(tbl);
    if (t == doc.end()) continue;
    auto v = t->find(key);
    if (v != t->end() && !v->is_string()) throw ConfigError(source + ": [" + tbl + "] " + key + " must be a string");
  }
  return Secrets(std::move(doc));
}

SecretsRead read_secrets(const CheckoutPath& path) {
  unsigned mode = 0;
  auto text = read_checkout_file(path, &mode);
  if (!text) return {};
  SecretsRead out;
  const std::string shown = path.full().string();
  out.secrets = parse_secrets(*text, shown);
  if (mode & 077) out.warning = shown + " is readable by other users; `chmod 600` it -- it may hold credentials";
  return out;
}

std::string_view secrets_header() {
  return "# .tether/secrets.toml: settings for this checkout only. It is not committed (see\n"
         "# .tether/.gitignore) and may hold credentials; keep it `chmod 600`. Tables:\n"
         "#   [vcs]               git_path, jj_path: the executables to run\n"
         "#   [import]            query: the default SQL of `tether import`\n"
         "#   [backends.<kind>]   options for every object of a kind (endpoints, api keys, ...)\n"
         "#   [uris.\"<prefix>\"]   options for every object whose store URI starts with prefix\n"
         "#   [objects.\"<key>\"]   options for one object (beats any prefix)\n";
}

}  // namespace tether::model
