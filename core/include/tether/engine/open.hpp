// tether/engine/open.hpp: `tether open` (docs/cli.md): a native handle on one object.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tether::engine {

using Json = nlohmann::json;

struct OpenResult {
  std::string key;
  bool read_only = true;
  std::string address, type;
  std::string display;  // what `tether open` prints: the handle's "display" field, else the address
  Json handle;
  Json to_json() const;  // `tether open --json`: the backend's own fields under "handle"
};

}  // namespace tether::engine
