// core/src/engine/pull.cpp: `tether pull` (docs/cli.md#pull) reads the heads of the bookmark's
// branches (on the trunk: every upstream branch) and commits what moved.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/commit.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/pull.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/restore.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

// ---- pull --------------------------------------------------------------------------------------

PullResult pull(Repo& repo, const std::optional<std::string>& bookmark, const std::optional<std::string>& message,
                const ProgressFn& progress) {
  Context& cx = Context::of(repo);
  auto lock = lock_checkout(cx);
  auto repo_lock = lock_repository(cx);
  if (!cx.workspace->bookmark)
    throw ConfigError("this working copy is on no bookmark; `tether new NAME` to work on one, then pull");
  const std::string b = *cx.workspace->bookmark;
  if (bookmark && *bookmark != b) throw ConfigError("this workspace works on '" + b + "'; `tether new " + *bookmark + "` first");
  check_on_bookmark(cx);
  if (cx.vcs->is_dirty(vcs_paths(cx)))
    throw ConfigError("manifests have uncommitted edits; `tether commit` them (or undo) before pulling");

  PullResult res;
  res.bookmark = b;
  const bool trunk = on_trunk_bookmark(cx);
  auto moving = moving_keys(cx);
  struct Job {
    std::string key;
    Json locator;
    std::optional<std::string> ref;
  };
  std::vector<Job> jobs;
  for (const auto& [key, m] : cx.manifests) {
    if (!m.state) {
      res.skipped[key] = "not committed yet; the first commit reads it";
      continue;
    }
    if (std::find(moving.begin(), moving.end(), key) != moving.end()) {
      jobs.push_back({key, m.locator, working_ref(cx, key)});
    } else if (trunk) {
      Json loc = m.locator;
      loc.erase("at");
      jobs.push_back({key, loc, std::nullopt});
    } else {
      res.skipped[key] = "no branch yet; sits at its pin";
    }
  }
  auto heads = fan_out<Json>(
      jobs.size(),
      [&](std::size_t i) {
        const auto& m = cx.manifests.at(jobs[i].key);
        Json st = cx.backend(m.kind).fingerprint(jobs[i].locator, jobs[i].ref, m.key);
        check_immutable(cx, m, st);
        return st;
      },
      progress);
  std::vector<std::string> errors;
  std::map<std::string, Json> fetched;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string& key = jobs[i].key;
    if (!heads[i].ok()) {
      errors.push_back(heads[i].keyed(key));
      continue;
    }
    const auto& m = cx.manifests.at(key);
    fetched[key] = *heads[i].value;
    cx.workspace->set_snapshot(key, *heads[i].value);
    // An object registered `at` a state that the trunk read upstream moves off `at`.
    bool leaves_at = m.locator.contains("at") && !jobs[i].locator.contains("at");
    if (cx.backend(m.kind).same(*m.state, *heads[i].value) && !leaves_at)
      res.unchanged.push_back(key);
    else
      res.committed[key] = {*m.state, *heads[i].value};
  }
  if (!errors.empty()) throw TetherError("pull: could not read " + join(errors, "; "));
  cx.workspace->last_snapshot_at = now_iso(cx);
  if (res.committed.empty()) {
    write_workspace(cx);
    return res;
  }
  std::size_t n = res.committed.size();
  CommitOptions opt;
  opt.message = message.value_or("pull " + b + ": " + std::to_string(n) + " object" + (n != 1 ? "s" : ""));
  std::vector<std::string> unchanged;
  Plan plan = plan_commit(cx, opt, fetched, unchanged);
  auto cr = apply_commit(cx, plan, /*verify=*/false, "pull", progress);
  res.vcs_commit = cr.vcs_commit;
  for (const auto& a : plan.actions)
    if (!a.key.empty()) res.pinned[a.key] = a.op == PlanOp::Pin ? std::optional<std::string>(a.params["pin_id"].get<std::string>()) : std::nullopt;
  return res;
}

Json PullResult::to_json() const {
  Json moved = Json::object();
  for (const auto& [k, v] : committed) moved[k] = {{"from", v.first}, {"to", v.second}};
  Json pins = Json::object();
  for (const auto& [k, v] : pinned) pins[k] = v ? Json(*v) : Json(nullptr);
  return Json{{"bookmark", bookmark},
              {"committed", moved},
              {"unchanged", unchanged},
              {"skipped", skipped},
              {"vcs_commit", vcs_commit ? Json(*vcs_commit) : Json(nullptr)},
              {"pinned", pins}};
}

// What `tether ops` says of a pull (ops.cpp's table).
std::string summarize_pull(const OpEntry& e) {
  const Json& r = e.result;
  if (r.contains("failed")) return summarize_commit(e);
  std::string s = "pulled " + plural(count_of(r, "pinned"), "object");
  std::string vc = str_of(r, "vcs_commit");
  return vc.empty() ? s : s + " -> " + vc.substr(0, 12);
}

}  // namespace tether::engine
