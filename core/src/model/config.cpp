// model/config.cpp: reading and writing tether.toml, and the committed-config allowlists.
#include "tether/model/config.hpp"

#include <algorithm>

#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/toml.hpp"

namespace tether::model {
namespace {

[[noreturn]] void bad(const std::string& source, const std::string& message) {
  throw ConfigError(source + ": " + message);
}

Json table(const Json& doc, const char* name, const std::string& source) {
  auto it = doc.find(name);
  if (it == doc.end()) return Json::object();
  if (!it->is_object()) bad(source, std::string("[") + name + "] must be a table, not " + toml_type_name(*it));
  return *it;
}

const Json* field(const Json& t, const char* name) {
  auto it = t.find(name);
  return it == t.end() ? nullptr : &*it;
}

bool get_bool(const Json& t, const char* tbl, const char* name, bool fallback, const std::string& source) {
  const Json* v = field(t, name);
  if (!v) return fallback;
  if (!v->is_boolean())
    bad(source, std::string("[") + tbl + "] " + name + " must be a boolean, not " + toml_type_name(*v));
  return v->get<bool>();
}

std::optional<std::string> get_string(const Json& t, const char* tbl, const char* name, const std::string& source) {
  const Json* v = field(t, name);
  if (!v) return std::nullopt;
  if (!v->is_string()) bad(source, std::string("[") + tbl + "] " + name + " must be a string, not " + toml_type_name(*v));
  return v->get<std::string>();
}

std::string choice(const Json& t, const char* tbl, const char* name, const char* a, const char* b) {
  const Json* v = field(t, name);
  if (!v) return a;
  if (!(v->is_string() && (*v == a || *v == b)))
    throw ConfigError(std::string("invalid [") + tbl + "] " + name + ": " + py_repr(*v) + " (" + a + " or " + b + ")");
  return v->get<std::string>();
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

}  // namespace

Json RepoConfig::backend(std::string_view kind) const {
  auto it = backends.find(std::string(kind));
  if (it == backends.end() || !it->is_object()) return Json::object();
  return *it;
}

std::string missing_dataset_id_message() {
  return "tether.toml has no valid [dataset] id (8 hex chars). It namespaces this dataset's pins and working "
         "branches in every store; add\n  [dataset]\n  id = \"" +
         new_dataset_id() +
         "\"\n(pins and branches made before it was set are not recognised: re-commit and `new`, or `tether repair`)";
}

RepoConfig parse_repo_config(std::string_view text, const std::string& source) {
  const Json doc = parse_toml(text, source);
  RepoConfig c;

  const Json tether = table(doc, "tether", source);
  if (const Json* v = field(tether, "version")) {
    if (!v->is_number_integer()) bad(source, "[tether] version must be an integer, not " + toml_type_name(*v));
    const auto n = v->get<int64_t>();
    if (n > kConfigVersion)
      throw ConfigError("tether.toml is version " + std::to_string(n) + ", newer than this tether understands (" +
                        std::to_string(kConfigVersion) + "); upgrade tether");
    if (n < 1) bad(source, "[tether] version must be at least 1, not " + std::to_string(n));
    c.version = static_cast<int>(n);
  }

  const Json dataset = table(doc, "dataset", source);
  const Json* id = field(dataset, "id");
  if (id && id->is_string() && is_dataset_id(id->get<std::string>())) c.dataset_id = id->get<std::string>();
  else if (c.version >= 2) throw ConfigError(missing_dataset_id_message());
  else if (id && id->is_string()) c.dataset_id = id->get<std::string>();  // v1: kept for `upgrade` to judge

  c.snapshot_auto = get_bool(table(doc, "snapshot", source), "snapshot", "auto", false, source);
  c.verify_on_status = get_bool(table(doc, "verify", source), "verify", "on_status", false, source);
  c.new_fork = choice(table(doc, "new", source), "new", "fork", "lazy", "eager");
  const Json defaults = table(doc, "defaults", source);
  c.default_file = choice(defaults, "defaults", "file", "immutable", "versioned");
  c.default_pin = choice(defaults, "defaults", "pin", "native", "record");

  const Json vcs = table(doc, "vcs", source);
  std::vector<std::string> executables;
  for (const char* k : {"git_path", "jj_path"})
    if (field(vcs, k)) executables.emplace_back(k);
  if (!executables.empty())
    throw ConfigError("tether.toml [vcs] sets " + join(executables, ", ") +
                      "; a committed file arrives with every clone and must not choose executables. Put it in "
                      ".tether/secrets.toml (untracked) under [vcs], or set TETHER_GIT / TETHER_JJ");
  if (field(vcs, "prefer")) c.vcs_prefer = choice(vcs, "vcs", "prefer", "jj", "git");
  c.vcs_trunk = get_string(vcs, "vcs", "trunk", source);

  c.backends = table(doc, "backends", source);
  for (auto it = c.backends.begin(); it != c.backends.end(); ++it)
    if (!it->is_object()) bad(source, "[backends." + it.key() + "] must be a table, not " + toml_type_name(it.value()));

  c.import_query = get_string(table(doc, "import", source), "import", "query", source);
  return c;
}

RepoConfig read_repo_config(const CheckoutPath& path) {
  auto text = read_checkout_file(path);
  if (!text) throw ConfigError("cannot read " + path.full().string() + ": it does not exist");
  return parse_repo_config(*text, path.rel.filename().string());
}

std::string repo_config_to_toml(const RepoConfig& c) {
  OrderedJson doc = OrderedJson::object();
  doc["tether"] = OrderedJson{{"version", c.version}};
  if (c.dataset_id) doc["dataset"] = OrderedJson{{"id", *c.dataset_id}};
  doc["snapshot"] = OrderedJson{{"auto", c.snapshot_auto}};
  doc["verify"] = OrderedJson{{"on_status", c.verify_on_status}};
  doc["new"] = OrderedJson{{"fork", c.new_fork}};
  doc["defaults"] = OrderedJson{{"file", c.default_file}, {"pin", c.default_pin}};
  OrderedJson vcs = OrderedJson::object();
  if (c.vcs_prefer) vcs["prefer"] = *c.vcs_prefer;
  if (c.vcs_trunk) vcs["trunk"] = *c.vcs_trunk;
  if (!vcs.empty()) doc["vcs"] = std::move(vcs);
  if (c.backends.is_object() && !c.backends.empty()) doc["backends"] = to_ordered(c.backends);
  if (c.import_query) doc["import"] = OrderedJson{{"query", *c.import_query}};
  return dump_toml(doc);
}

void write_repo_config(const CheckoutPath& path, const RepoConfig& config) {
  write_checkout_file(path, repo_config_to_toml(config));
}

void check_committed_backend_config(std::string_view kind, const Json& tbl,
                                    const std::vector<std::string>& safe_config_keys,
                                    const std::map<std::string, std::vector<std::string>>& safe_option_keys) {
  if (!tbl.is_object()) return;
  const auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> refused;
  for (auto it = tbl.begin(); it != tbl.end(); ++it) {
    if (!contains(safe_config_keys, it.key())) {
      refused.push_back(it.key());
      continue;
    }
    if (!it->is_object()) continue;
    const auto allowed = safe_option_keys.find(it.key());
    for (auto sub = it->begin(); sub != it->end(); ++sub)
      if (allowed == safe_option_keys.end() || !contains(allowed->second, sub.key()))
        refused.push_back(it.key() + "." + sub.key());
  }
  if (refused.empty()) return;
  const std::string k(kind);
  throw ConfigError("tether.toml [backends." + k + "] sets " + join(refused, ", ") +
                    "; a committed file arrives with every clone and must not choose executables, endpoints, "
                    "credentials, or SQL. Put it in .tether/secrets.toml (untracked) under [backends." + k +
                    "], or in the environment");
}

}  // namespace tether::model
