// core/src/engine/ops.cpp: `tether ops` (docs/cli.md): the operation log newest first, each
// entry summarised, and VCS drift: commits tether made that left VCS history
// behind its back (a `git reset`, a rebase), which `status` warns about.
#include <algorithm>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/ops.hpp"
#include "tether/engine/repo.hpp"
#include "tether/model/json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

// Keys of an object, or the strings of an array.
std::vector<std::string> names_of(const Json& j) {
  std::vector<std::string> out;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) out.push_back(k);
  else if (j.is_array())
    for (const auto& v : j)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::size_t count_of(const Json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end()) return 0;
  if (it->is_number_unsigned() || it->is_number_integer()) return it->get<std::size_t>();
  return it->is_array() || it->is_object() ? it->size() : 0;
}

std::string plural(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + "(s)";
}

// A format upgrade the Python version made: its entries stay readable here.
std::string summarize_upgrade(const OpEntry& e) {
  const Json& r = e.result;
  return "v" + model::py_str(r.value("from_version", Json(nullptr))) + " -> v" +
         model::py_str(r.value("to_version", Json(nullptr))) + ": " + plural(count_of(r, "renamed_pins"), "pin") + ", " +
         plural(count_of(r, "renamed_branches"), "branch") + ", " + plural(count_of(r, "rewritten_commits"), "commit") +
         " rewritten";
}

OpsReport ops(Repo& repo, std::size_t limit) {
  Context& cx = Context::of(repo);
  auto entries = read_ops(cx);
  std::set<std::string> gone;
  for (const auto& d : cx.vcs_drift()) gone.insert(d.op);
  OpsReport out;
  for (auto it = entries.rbegin(); it != entries.rend() && (limit == 0 || out.entries.size() < limit); ++it) {
    OpsEntry o;
    o.id = it->id;
    o.at = it->at;
    o.command = it->command;
    o.summary = op_summary(*it);
    o.incomplete = it->incomplete();
    o.vcs_commit_gone = gone.count(it->id) > 0;
    if (it->undone_by.is_string()) o.undone_by = it->undone_by.get<std::string>();
    if (it->parent.is_string()) o.parent = it->parent.get<std::string>();
    o.entry = it->to_json();
    out.entries.push_back(std::move(o));
  }
  return out;
}

std::vector<VcsDrift> Repo::vcs_drift() const {
  const Context& cx = Context::of(*this);
  auto entries = read_ops(cx);
  // Commits that abandon (or upgrade) rewrote, and those abandon and drop removed on purpose.
  std::map<std::string, std::string> alias;
  std::set<std::string> removed;
  for (const auto& e : entries) {
    if (e.command == "drop") {
      for (const auto& a : names_of(e.result.value("abandoned", Json::array()))) removed.insert(a);
      continue;
    }
    if (e.command != "abandon" && e.command != "upgrade") continue;
    if (auto rw = e.result.find("rewritten_commits"); rw != e.result.end() && rw->is_object())
      for (const auto& [from, to] : rw->items())
        if (to.is_string()) alias[from] = to.get<std::string>();
    if (e.command == "abandon")
      for (const auto& a : names_of(e.result.value("abandoned", Json::array()))) removed.insert(a);
  }
  struct Candidate {
    const OpEntry* e;
    std::string commit;
  };
  std::vector<Candidate> candidates;
  std::vector<std::string> ask;
  for (const auto& e : entries) {
    if ((e.command != "commit" && e.command != "pull") || !e.undone_by.is_null()) continue;
    std::string c = str_of(e.result, "vcs_commit");
    if (c.empty()) continue;
    for (std::size_t hops = 0; alias.count(c) && hops < alias.size(); ++hops) c = alias.at(c);  // a chain of rewrites
    if (removed.count(c)) continue;
    candidates.push_back({&e, c});
    ask.push_back(c);
  }
  if (candidates.empty()) return {};
  std::set<std::string> alive = cx.vcs->alive_commits(ask);
  std::vector<VcsDrift> out;
  for (const auto& [e, c] : candidates) {
    if (alive.count(c)) continue;
    VcsDrift d{e->id, c, {}};
    if (auto p = e->result.find("pinned"); p != e->result.end() && p->is_object())
      for (const auto& [key, pin_id] : p->items()) {
        if (!pin_id.is_string()) continue;
        auto m = cx.manifests.find(key);
        d.referenced[key] = m != cx.manifests.end() && m->second.pin && m->second.pin->id == pin_id.get<std::string>();
      }
    out.push_back(std::move(d));
  }
  return out;
}

std::string VcsDrift::message() const {
  std::string s = "dataset commit " + commit.substr(0, 12) + " (op " + op +
                  ") is no longer in VCS history: undone or abandoned outside tether";
  std::vector<std::string> named, unreferenced;
  for (const auto& [k, still] : referenced) (still ? named : unreferenced).push_back(k);
  if (!named.empty())
    s += "; its pins for " + join(named) +
         " are still named by the working tree (commit again, or restore the manifests to drop them)";
  if (!unreferenced.empty())
    s += "; its pins for " + join(unreferenced) +
         " are unreferenced; `gc` will release them, `repair` recreates them if the commit comes back";
  return s;
}

Json OpsEntry::to_json() const {
  Json j = entry;
  j["vcs_commit_gone"] = vcs_commit_gone;
  return j;
}

Json OpsReport::to_json() const {
  auto arr = Json::array();
  for (const auto& e : entries) arr.push_back(e.to_json());
  return arr;
}

}  // namespace tether::engine
