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

static std::string store_group(Context& cx, const model::ObjectManifest& m);

static std::string store_group(Context& cx, const model::ObjectManifest& m) {
  try {
    return m.kind + "|" + cx.backend(m.kind).ref_namespace(m.locator, m.key);
  } catch (const std::exception&) {
    return "";
  }
}

std::set<std::string> dropped_states(Context& cx, const std::vector<std::string>& commits) {
  std::set<std::string> out;
  for (const auto& c : commits)
    for (const auto& [k, m] : manifests_at(cx, c))
      if (m.state)
        if (auto g = store_group(cx, m); !g.empty())
          out.insert(g + "\n" + support::canonical_json(cx.backend(m.kind).content_state(*m.state)));
  return out;
}

}  // namespace tether::engine
