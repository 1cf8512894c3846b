// core/src/engine/ops.cpp: `tether ops` (docs/cli.md): the operation log newest first, each
// entry summarised, and VCS drift: commits tether made that left VCS history
// behind its back (a `git reset`, a rebase), which `status` warns about.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <set>

#include "engine/internal.hpp"
#include "tether/engine/ops.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/model/checkout.hpp"
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

// A format upgrade (this version's, or the Python version's: the same result fields).
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

namespace {

// A commit or pull tether made and did not undo: its op and the commit it made, followed
// through abandon's rewrites; commits abandon and drop removed on purpose are left out.
struct DriftCandidate {
  std::string op, commit;
};

std::vector<DriftCandidate> drift_candidates(const std::vector<OpEntry>& entries) {
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
  std::vector<DriftCandidate> out;
  for (const auto& e : entries) {
    if ((e.command != "commit" && e.command != "pull") || !e.undone_by.is_null()) continue;
    std::string c = str_of(e.result, "vcs_commit");
    if (c.empty()) continue;
    for (std::size_t hops = 0; alias.count(c) && hops < alias.size(); ++hops) c = alias.at(c);  // a chain of rewrites
    if (removed.count(c)) continue;
    out.push_back({e.id, std::move(c)});
  }
  return out;
}

// ---- the record of the candidates: .tether/cache/drift-candidates ----
//
// `status` and `ops` check for drift on every run, and the op log grows by a commit's whole
// manifests per commit (11 MB after 1,000 commits of 50 objects), so reading it all each
// time made `status` grow with the history. The candidates depend on the log's bytes alone,
// and the log is only ever appended to; the record keeps them under the log's identity
// (device, inode, size, modification and change times). Like the tracked-file record
// (support.cpp), a log changed less than kRacyNs before it was read is not recorded (a
// rewrite of the same size within the file system's time granularity would look the same),
// and anything in the record that is not exactly what record_candidates writes means the
// log is read again. The malformed lines the read skipped are kept too, so the warning
// about them is the same on every run.
constexpr const char* kCandidatesRecord = "drift-candidates";
constexpr std::int64_t kRacyNs = 2'000'000'000;

struct LogStamp {
  std::string id;             // "v1 dev ino size mtime ctime"
  std::int64_t changed_ns = 0;
};

std::optional<LogStamp> log_stamp(const model::CheckoutPath& log) {
  model::Fd fd;
  try {
    fd = model::open_checkout_file(log, O_RDONLY);
  } catch (const TetherError&) {
    return std::nullopt;  // read_ops reports what is wrong with it
  }
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  auto ns = [](const struct timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; };
  LogStamp s;
  s.id = "v1 " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
         std::to_string(ns(st.st_mtim)) + " " + std::to_string(ns(st.st_ctim));
  s.changed_ns = std::max(ns(st.st_mtim), ns(st.st_ctim));
  return s;
}

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool plain_token(std::string_view t) {
  if (t.empty() || t.size() > 256) return false;
  for (char c : t)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  return true;
}

struct Recorded {
  std::vector<DriftCandidate> candidates;
  std::vector<std::size_t> skipped;
};

// The record, if it was written for exactly this log; nullopt for anything else.
std::optional<Recorded> recorded_candidates(const std::filesystem::path& root, const LogStamp& stamp) {
  std::optional<std::string> text;
  try {
    text = model::read_checkout_file(model::tether_path(root, "cache") / kCandidatesRecord);
  } catch (const TetherError&) {
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  std::string_view rest(*text);
  auto next_line = [&rest]() -> std::optional<std::string_view> {
    auto nl = rest.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    auto line = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    return line;
  };
  auto number = [](std::string_view t, auto& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty();
  };
  auto first = next_line();
  if (!first || *first != stamp.id) return std::nullopt;
  std::int64_t checked_ns = 0;
  auto second = next_line();
  if (!second || !number(*second, checked_ns) || checked_ns - stamp.changed_ns < kRacyNs) return std::nullopt;
  Recorded r;
  auto third = next_line();
  if (!third || !third->starts_with("skipped")) return std::nullopt;
  for (std::string_view list = third->substr(7); !list.empty();) {
    if (list[0] != ' ') return std::nullopt;
    list.remove_prefix(1);
    auto sp = list.find(' ');
    std::size_t n = 0;
    if (!number(list.substr(0, sp), n)) return std::nullopt;
    r.skipped.push_back(n);
    list = sp == std::string_view::npos ? std::string_view() : list.substr(sp);
  }
  while (auto line = next_line()) {
    if (*line == "end") return rest.empty() ? std::optional<Recorded>(std::move(r)) : std::nullopt;
    auto sp = line->find(' ');
    if (sp == std::string_view::npos) return std::nullopt;
    auto op = line->substr(0, sp), commit = line->substr(sp + 1);
    if (!plain_token(op) || !plain_token(commit)) return std::nullopt;
    r.candidates.push_back({std::string(op), std::string(commit)});
  }
  return std::nullopt;  // no "end": torn
}

void record_candidates(const std::filesystem::path& root, const LogStamp& stamp, std::int64_t read_at_ns, const Recorded& r) {
  // Only what the record can give back: a token with a space or a newline is never recorded.
  for (const auto& c : r.candidates)
    if (!plain_token(c.op) || !plain_token(c.commit)) return;
  std::string text = stamp.id + "\n" + std::to_string(read_at_ns) + "\nskipped";
  for (auto n : r.skipped) text += " " + std::to_string(n);
  text += "\n";
  for (const auto& c : r.candidates) text += c.op + " " + c.commit + "\n";
  text += "end\n";
  try {
    model::write_checkout_file(model::tether_path(root, "cache") / kCandidatesRecord, text);
  } catch (const TetherError&) {
    // Only the shortcut is lost: the next command reads the log again.
  }
}

}  // namespace

std::vector<VcsDrift> Repo::vcs_drift() const {
  const Context& cx = Context::of(*this);
  const model::CheckoutPath log = model::tether_path(cx.root, "ops.jsonl");
  // The record is used, or written, only when the log is the same file before and after it
  // is read: a command appending meanwhile is read again next time.
  const auto before = log_stamp(log);
  std::optional<std::vector<OpEntry>> entries;  // read only when needed
  std::vector<DriftCandidate> candidates;
  if (auto r = before ? recorded_candidates(cx.root, *before) : std::nullopt) {
    warn_skipped_ops(cx, log, r->skipped);
    candidates = std::move(r->candidates);
  } else {
    const std::int64_t read_at = wall_ns();
    std::vector<std::size_t> skipped;
    entries = read_ops(cx, std::nullopt, &skipped);
    candidates = drift_candidates(*entries);
    const auto after = log_stamp(log);
    if (before && after && before->id == after->id && read_at - before->changed_ns >= kRacyNs)
      record_candidates(cx.root, *before, read_at, Recorded{candidates, std::move(skipped)});
  }
  if (candidates.empty()) return {};
  std::vector<std::string> ask;
  ask.reserve(candidates.size());
  for (const auto& c : candidates) ask.push_back(c.commit);
  std::set<std::string> alive = cx.vcs->alive_commits(ask);
  std::vector<VcsDrift> out;
  std::map<std::string, const OpEntry*> by_id;
  for (const auto& c : candidates) {
    if (alive.count(c.commit)) continue;
    if (!entries) entries = read_ops(cx);  // drift found: its pins are in the log
    if (by_id.empty())
      for (const auto& e : *entries) by_id[e.id] = &e;
    VcsDrift d{c.op, c.commit, {}};
    auto e = by_id.find(c.op);
    if (e == by_id.end()) continue;  // the log changed under the record: the next run reads it again
    const Json& result = e->second->result;
    if (auto p = result.find("pinned"); p != result.end() && p->is_object())
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
