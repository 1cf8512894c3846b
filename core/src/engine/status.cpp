// core/src/engine/status.cpp: `tether status` (docs/cli.md#status), and the fingerprinting it,
// snapshot and commit share.
#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/status.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/workspace.hpp"

namespace tether::engine {

SnapshotResult fingerprint_keys(Context& cx, const std::vector<std::string>& keys, bool upstream, const ProgressFn& progress) {
  auto moving = moving_keys(cx);
  auto is_moving = [&](const std::string& k) { return std::find(moving.begin(), moving.end(), k) != moving.end(); };
  struct Job {
    const model::ObjectManifest* m;
    Json locator;
    std::optional<std::string> ref;
  };
  std::vector<Job> jobs;
  for (const auto& key : keys) {
    const auto& m = cx.manifests.at(key);
    Job j{&m, m.locator, std::nullopt};
    if (upstream && !is_moving(key)) j.locator.erase("at");  // where upstream is now
    else j.ref = working_ref(cx, key);
    jobs.push_back(std::move(j));
  }
  auto results = fan_out<Json>(
      jobs.size(),
      [&](std::size_t i) {
        const auto& j = jobs[i];
        Json state = cx.backend(j.m->kind).fingerprint(j.locator, j.ref, j.m->key);
        check_immutable(cx, *j.m, state);
        return state;
      },
      progress);
  SnapshotResult out;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& key = jobs[i].m->key;
    if (results[i].ok()) {
      out.states[key] = *results[i].value;
      continue;
    }
    out.errors[key] = results[i].keyed(key);
  }
  return out;
}

void check_immutable(Context& cx, const model::ObjectManifest& m, const Json& state) {
  if (!m.state || m.policy.file != "immutable") return;
  auto& b = cx.backend(m.kind);
  uint32_t caps = cx.effective_capabilities(m);
  if (caps & (sdk::kAddressable | sdk::kPin | sdk::kFork)) return;  // only Observed objects
  if (b.same(*m.state, state)) return;
  throw ImmutableObjectModified("immutable object " + model::py_repr(m.key) +
                                    " changed since it was committed; if the change is intended, `tether set " + m.key +
                                    " --file versioned` and commit again",
                                m.key);
}

StatusReport status(Repo& repo, std::optional<bool> snap, const ProgressFn& progress) {
  Context& cx = Context::of(repo);
  StatusReport r;
  bool fresh = snap.value_or(cx.config.snapshot_auto);
  // A workspace that never fingerprinted, or a key the cache knows nothing of, is always read.
  if (!cx.workspace->last_snapshot_at) fresh = true;
  for (const auto& [k, m] : cx.manifests)
    if (!cx.workspace->last_snapshot.count(k) && !cx.workspace->last_snapshot_errors.count(k)) fresh = true;
  if (fresh) snapshot(cx, progress);
  r.fresh = fresh;
  r.manifest_hash = model::manifest_hash(cx.manifests);
  r.snapshot_at = cx.workspace->last_snapshot_at;
  r.bookmark = cx.workspace->bookmark;
  r.trunk = cx.config.trunk();
  r.stale_keys = cx.stale_keys();
  r.bookmark_drift = cx.bookmark_drift();
  auto moving = moving_keys(cx);
  for (const auto& [key, m] : cx.manifests) {
    ObjectStatus o;
    o.key = key;
    o.kind = m.kind;
    o.pinned = m.pin.has_value();
    o.recoverable = m.recoverable;
    o.origin = m.origin;
    if (auto e = cx.workspace->last_snapshot_errors.find(key); e != cx.workspace->last_snapshot_errors.end()) o.error = e->second;
    if (auto s = cx.workspace->last_snapshot.find(key); s != cx.workspace->last_snapshot.end()) o.state = s->second;
    try {
      o.tier = sdk::tier_name(cx.effective_capabilities(m));
    } catch (const std::exception& e) {
      o.tier = "?";
      if (!o.error) o.error = keyed_error(key, e);
    }
    bool committed = m.state.has_value();
    bool differs = false;
    if (committed && o.state && !o.error) differs = !cx.backend(m.kind).same(*m.state, *o.state);
    bool is_moving = std::find(moving.begin(), moving.end(), key) != moving.end();
    if (o.error) o.label = "error";
    else if (!committed) o.label = "new";
    else if (differs && !is_moving) o.label = "behind";
    else if (differs) o.label = "modified";
    else o.label = "clean";
    if (cx.config.verify_on_status && committed && !o.error) {
      try {
        o.verify = sdk::verify_status_name(cx.backend(m.kind).verify(m.locator, *m.state, m.pin, false, key).status);
      } catch (const std::exception&) {
        o.verify = "unknown";
      }
    }
    r.objects.push_back(std::move(o));
  }
  return r;
}

bool StatusReport::has_error() const {
  for (const auto& o : objects)
    if (o.error) return true;
  return false;
}

Json ObjectStatus::to_json() const {
  return Json{{"key", key},
              {"kind", kind},
              {"tier", tier},
              {"status", label},
              {"state", state ? *state : Json(nullptr)},
              {"pinned", pinned},
              {"recoverable", recoverable},
              {"origin", origin.value_or("adopted")},
              {"verify", verify ? Json(*verify) : Json(nullptr)},
              {"error", error ? Json(*error) : Json(nullptr)}};
}

Json StatusReport::to_json() const {
  auto list = Json::array();
  for (const auto& ob : objects) list.push_back(ob.to_json());
  return Json{{"manifest_hash", manifest_hash},
              {"stale", !stale_keys.empty()},
              {"stale_keys", stale_keys},
              {"fresh", fresh},
              {"snapshot_at", snapshot_at ? Json(*snapshot_at) : Json(nullptr)},
              {"bookmark", bookmark ? Json(*bookmark) : Json(nullptr)},
              {"trunk", trunk},
              // VCS drift is reported by `tether ops` and as status's text warnings; the JSON
              // field stays for its readers, always empty.
              {"bookmark_drift", bookmark_drift},
              {"vcs_drift", Json::array()},
              {"objects", list}};
}

}  // namespace tether::engine
