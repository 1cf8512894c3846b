// core/src/engine/reclaim.cpp: what the commands reclaiming storage share (gc, abandon, drop):
// the store a manifest's pins and branches live in, and the states dropped commits held.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/abandon.hpp"
#include "tether/engine/drop.hpp"
#include "tether/engine/forget_workspace.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/new.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

std::string Repo::store_group(const model::ObjectManifest& m) {
  try {
    return m.kind + "|" + backend(m.kind).ref_namespace(m.locator, m.key);
  } catch (const std::exception&) {
    return "";
  }
}

std::set<std::string> Repo::dropped_states(const std::vector<std::string>& commits) {
  std::set<std::string> out;
  for (const auto& c : commits)
    for (const auto& [k, m] : manifests_at(c))
      if (m.state)
        if (auto g = store_group(m); !g.empty())
          out.insert(g + "\n" + support::canonical_json(backend(m.kind).content_state(*m.state)));
  return out;
}

}  // namespace tether::engine
