// tether/model/secrets.hpp: `.tether/secrets.toml`, the untracked per-checkout file that may
// hold credentials (docs/FORMAT.md#secretstoml). Values are never put into messages.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tether/model/checkout.hpp"

namespace tether::model {

class Secrets {
 public:
  Secrets() = default;
  explicit Secrets(nlohmann::json data) : data_(std::move(data)) {}

  bool empty() const { return data_.empty(); }
  std::optional<std::string> git_path() const { return string_at("vcs", "git_path"); }
  std::optional<std::string> jj_path() const { return string_at("vcs", "jj_path"); }
  std::optional<std::string> import_query() const { return string_at("import", "query"); }
  // [backends.<kind>], or an empty object.
  nlohmann::json backend(std::string_view kind) const;
  // [uris."<prefix>"] tables: prefix -> options (empty object when absent).
  nlohmann::json uris() const { return table("uris"); }
  // [objects."<key>"] tables: key -> options.
  nlohmann::json objects() const { return table("objects"); }
  nlohmann::json object(std::string_view key) const;
  const nlohmann::json& data() const { return data_; }

 private:
  std::optional<std::string> string_at(const char* tbl, const char* key) const;
  nlohmann::json table(const char* name) const;
  nlohmann::json data_ = nlohmann::json::object();
};

struct SecretsRead {
  Secrets secrets;
  // `<path> is readable by other users; `chmod 600` it -- it may hold credentials` when the
  // file's mode has group/other bits. The caller prints it; reading goes on.
  std::optional<std::string> warning;
};

// A missing file is empty secrets. TOML syntax errors name the file and line but never the
// text; wrong table types are ConfigError (naming the table, not the value). The file is
// opened without following a symlink (model/checkout.hpp): secrets.toml is never read from
// where a clone's link points.
SecretsRead read_secrets(const CheckoutPath& path);
Secrets parse_secrets(std::string_view text, const std::string& source);

// The header comment tether writes when it creates secrets.toml.
std::string_view secrets_header();

}  // namespace tether::model
