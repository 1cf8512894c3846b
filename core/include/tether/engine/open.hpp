// tether/engine/open.hpp: `tether open` (docs/cli.md): a native handle on one object.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tether::engine {

class Repo;

using Json = nlohmann::json;

struct OpenResult {
  std::string key;
  bool read_only = true;
  std::string address, type;
  std::string display;  // what `tether open` prints: the handle's "display" field, else the address
  Json handle;
  Json to_json() const;  // `tether open --json`: the backend's own fields under "handle"
};

// with_password: the backend may show a secret in `display` (`tether open --with-password`).
OpenResult open_object(Repo& repo, const std::string& key, const std::optional<std::string>& rev,
                       std::optional<bool> writable, bool with_password = false);

}  // namespace tether::engine
