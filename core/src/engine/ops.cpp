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

namespace {

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

std::string summary_commit(const Json& r) {
  if (r.contains("failed")) return "failed" + std::string(bool_of(r, "rolled_back") ? ", rolled back" : "") + ": " +
                                   str_of(r, "failed");
  std::vector<std::string> pinned, recorded, parts;
  if (auto p = r.find("pinned"); p != r.end() && p->is_object())
    for (const auto& [k, v] : p->items()) (v.is_null() ? recorded : pinned).push_back(k);
  if (!pinned.empty()) parts.push_back("pinned " + join(pinned));
  if (!recorded.empty()) parts.push_back("recorded " + join(recorded));
  std::string c = str_of(r, "vcs_commit");
  if (!c.empty()) parts.push_back("vcs " + c.substr(0, 12));
  return parts.empty() ? "nothing changed" : join(parts, "; ");
}

std::string summary_new(const Json& r) {
  std::vector<std::string> parts;
  auto part = [&](const char* label, const std::vector<std::string>& keys) {
    if (!keys.empty()) parts.push_back(std::string(label) + " " + join(keys));
  };
  part("forked", names_of(r.value("created", Json::array())));
  part("reset", names_of(r.value("reset", Json::array())));
  part("kept", names_of(r.value("reused", Json::array())));
  part("deferred", names_of(r.value("pending_forks", Json::object())));
  std::string s = parts.empty() ? "working refs unchanged" : join(parts, "; ");
  std::string at = str_of(r, "bookmark");
  if (at.empty()) at = str_of(r.value("vcs", Json::object()), "commit").substr(0, 12);
  if (!at.empty()) s += "; at " + at;
  if (r.contains("failed") && !r["failed"].empty())
    s += "; failed " + (r["failed"].is_string() ? r["failed"].get<std::string>() : join(names_of(r["failed"])));
  return s;
}

std::string summary_set(const Json& r) {
  std::vector<std::string> items;
  if (auto c = r.find("changed"); c != r.end() && c->is_object())
    for (const auto& [k, fields] : c->items()) {
      std::string s = k + ":";
      for (const auto& [f, v] : fields.items())
        if (v.is_array() && v.size() == 2) s += " " + f + "=" + model::py_str(v[0]) + "->" + model::py_str(v[1]);
      items.push_back(s);
    }
  return join(items);
}

}  // namespace

std::string op_summary(const OpEntry& e) {
  const Json& r = e.result;
  const std::string& c = e.command;
  if (c == "commit") return summary_commit(r);
  if (c == "pull") {
    if (r.contains("failed")) return summary_commit(r);
    std::string s = "pulled " + plural(count_of(r, "pinned"), "object");
    std::string vc = str_of(r, "vcs_commit");
    return vc.empty() ? s : s + " -> " + vc.substr(0, 12);
  }
  if (c == "new") return summary_new(r);
  if (c == "restore") {
    std::vector<std::string> keys = names_of(r.value("working_refs", Json::object()));
    if (keys.empty()) {
      keys = names_of(r.value("created", Json::array()));
      for (const auto& k : names_of(r.value("reset", Json::array()))) keys.push_back(k);
    }
    return "restored " + join(keys) + " from " + str_of(r, "from_commit").substr(0, 12);
  }
  if (c == "fork") return "forked " + str_of(r, "key") + " -> " + str_of(r, "ref");
  if (c == "gc") {
    // {kind: [pin ids]} and {key: [refs]}: count the ids, not the groups.
    auto nested = [&](const char* key) {
      std::size_t n = 0;
      if (auto it = r.find(key); it != r.end() && it->is_object())
        for (const auto& [k, v] : it->items()) n += v.is_array() ? v.size() : 1;
      return n;
    };
    std::string s = "unpinned " + std::to_string(nested("unpinned")) + ", deleted " +
                    plural(nested("deleted_working_refs"), "branch");
    if (std::size_t stores = count_of(r, "deleted_stores")) s += ", deleted " + plural(stores, "store");
    return s;
  }
  if (c == "promote") {
    std::vector<std::string> keys = names_of(r.value("fast_forwarded", Json::object()));
    for (const auto& k : names_of(r.value("merged", Json::object()))) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    return keys.empty() ? "nothing promoted" : "promoted " + join(keys);
  }
  if (c == "import")
    return "added " + std::to_string(count_of(r, "added")) + ", updated " + std::to_string(count_of(r, "updated")) +
           ", removed " + std::to_string(count_of(r, "removed"));
  if (c == "add" || c == "remove") return str_of(r, "key") + (r.contains("created") ? " (created store)" : "");
  if (c == "set") return summary_set(r);
  if (c == "undo") {
    std::string s = "undid " + (e.undoes.is_string() ? e.undoes.get<std::string>() : std::string("?")) + ": " +
                    str_of(r, "summary");
    if (r.contains("failed")) s += " (failed: " + str_of(r, "failed") + ")";
    return s;
  }
  if (c == "repair") return "repinned " + std::to_string(count_of(r, "repinned")) + ", reforked " +
                            std::to_string(count_of(r, "reforked"));
  if (c == "forget-workspace") {
    std::string id = str_of(r, "workspace_id");
    if (id.empty()) id = str_of(r, "workspace");
    return "forgot workspace " + id.substr(0, 8);
  }
  if (c == "abandon") {
    std::vector<std::string> ids;
    for (const auto& a : names_of(r.value("abandoned", Json::array()))) ids.push_back(a.substr(0, 12));
    return "abandoned " + join(ids) + "; " + plural(count_of(r, "unreferenced"), "pin") + " freed";
  }
  if (c == "upgrade")
    return "v" + model::py_str(r.value("from_version", Json(nullptr))) + " -> v" +
           model::py_str(r.value("to_version", Json(nullptr))) + ": " + plural(count_of(r, "renamed_pins"), "pin") + ", " +
           plural(count_of(r, "renamed_branches"), "branch") + ", " + plural(count_of(r, "rewritten_commits"), "commit") +
           " rewritten";
  if (c == "drop") {
    std::string s = "dropped " + str_of(r, "bookmark") + ": " + plural(count_of(r, "abandoned"), "commit");
    if (std::string left = str_of(r, "left_for"); !left.empty()) s += "; left for " + left;
    return s;
  }
  return "";
}

std::vector<OpsEntry> Repo::ops(std::size_t limit) {
  auto entries = read_ops();
  std::set<std::string> gone;
  for (const auto& d : vcs_drift()) gone.insert(d.op);
  std::vector<OpsEntry> out;
  for (auto it = entries.rbegin(); it != entries.rend() && (limit == 0 || out.size() < limit); ++it) {
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
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<VcsDrift> Repo::vcs_drift() const {
  auto entries = read_ops();
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
  std::set<std::string> alive = vcs_->alive_commits(ask);
  std::vector<VcsDrift> out;
  for (const auto& [e, c] : candidates) {
    if (alive.count(c)) continue;
    VcsDrift d{e->id, c, {}};
    if (auto p = e->result.find("pinned"); p != e->result.end() && p->is_object())
      for (const auto& [key, pin_id] : p->items()) {
        if (!pin_id.is_string()) continue;
        auto m = manifests_.find(key);
        d.referenced[key] = m != manifests_.end() && m->second.pin && m->second.pin->id == pin_id.get<std::string>();
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

}  // namespace tether::engine
