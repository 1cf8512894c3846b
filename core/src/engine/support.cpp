// core/src/engine/support.cpp: secrets, .gitignore upkeep, the tracked-file refusal, parsing
// manifests read out of the VCS, and the op log.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/errors.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/checkout.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/limits.hpp"
#include "tether/model/names.hpp"
#include "tether/model/toml.hpp"
#include "tether/support/canonical_json.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string str_of(const Json& j, const char* key) {
  auto it = j.find(key);  // find() on a non-object is end()
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool bool_of(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::vector<std::string> strings_of(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string keyed_error(const std::string& key, const std::exception& e) { return with_key(key, e.what()); }

std::string git_executable(const Json& secrets) {
  if (auto v = secrets.find("vcs"); v != secrets.end() && v->is_object())
    if (auto g = v->find("git_path"); g != v->end() && g->is_string()) return g->get<std::string>();
  if (const char* env = std::getenv("TETHER_GIT"); env && *env) return env;
  return "";
}

namespace {

// The racy window of the record below: an index changed less than this before the check may
// be replaced by one with the same stat (coarse file times), so its answer is not kept.
constexpr int64_t kTrackedRacyWindowNs = 2'000'000'000;
constexpr const char* kTrackedRecord = "tracked-check";

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The record `.tether/cache/tracked-check` says "none of these paths was tracked when the
// index had this stamp": its first line is the stamp and the paths, the second when it was
// checked. Anything else in the file, or no file, means check again.
std::string tracked_record_key(const vcs::VcsAdapter::IndexStamp& stamp, const std::vector<std::string>& paths) {
  std::string key = "v1 " + stamp.id;
  for (const auto& p : paths) key += "\t" + p;
  return key;
}

bool untracked_recorded(const fs::path& root, const std::string& key, int64_t changed_ns) {
  std::optional<std::string> text;
  try {
    text = model::read_checkout_file(model::tether_path(root, "cache") / kTrackedRecord);
  } catch (const TetherError&) {
    return false;
  }
  if (!text || text->size() <= key.size() + 1 || text->compare(0, key.size(), key) != 0 || (*text)[key.size()] != '\n')
    return false;
  int64_t checked_ns = 0;
  const char* first = text->data() + key.size() + 1;
  const char* last = text->data() + text->size();
  auto [end, ec] = std::from_chars(first, last, checked_ns);
  if (ec != std::errc() || end == first || std::string_view(end, static_cast<std::size_t>(last - end)) != "\n")
    return false;
  return checked_ns - changed_ns >= kTrackedRacyWindowNs;
}

void record_untracked(const fs::path& root, const std::string& key, int64_t checked_ns) {
  try {
    model::write_checkout_file(model::tether_path(root, "cache") / kTrackedRecord,
                               key + "\n" + std::to_string(checked_ns) + "\n");
  } catch (const TetherError&) {
    // Only the shortcut is lost: the next command checks the index again.
  }
}

}  // namespace

void refuse_tracked_checkout_files(const vcs::VcsAdapter& vcs, const fs::path& root, const std::string& tether_vcs_dir,
                                   bool remember) {
  std::vector<std::string> paths;
  std::error_code ec;
  const fs::path work_tree = fs::canonical(vcs.root(), ec);
  for (const char* name : {"secrets.toml", "workspace.toml", "ops.jsonl", "lock", "cache"}) {
    paths.push_back(tether_vcs_dir + "/" + name);
    // Also the name the path resolves to, should the way to the root pass through a link:
    // a file is refused when tracked under any name that reaches it.
    const fs::path real = fs::canonical(root / ".tether" / name, ec);
    if (ec || work_tree.empty()) continue;
    const std::string rel = real.lexically_relative(work_tree).generic_string();
    if (!rel.empty() && !rel.starts_with("..") && rel != paths.back()) paths.push_back(rel);
  }
  // Reading the whole index costs O(files in the repository) on every command. Its stat
  // (git replaces the file on every change) says whether the last "none tracked" still
  // holds; the record lives in the checkout's cache, and a record copied from elsewhere
  // names another index (device, inode, times) and is ignored.
  std::optional<vcs::VcsAdapter::IndexStamp> stamp = remember ? vcs.index_stamp() : std::nullopt;
  const std::string key = stamp ? tracked_record_key(*stamp, paths) : "";
  if (stamp && untracked_recorded(root, key, stamp->changed_ns)) return;
  const int64_t checked_ns = wall_ns();
  auto tracked = vcs.tracked(paths);
  if (tracked.empty()) {
    // A record of a racy index would never be trusted: no write (right after a git commit).
    if (stamp && checked_ns - stamp->changed_ns >= kTrackedRacyWindowNs) record_untracked(root, key, checked_ns);
    return;
  }
  throw ConfigError(join(tracked) + (tracked.size() == 1 ? " is" : " are") + " tracked by " + vcs.kind() +
                    "; these files belong to one checkout (secrets.toml may hold credentials, and is not used while "
                    "tracked). Untrack them: `git rm -r --cached " +
                    join(tracked, " ") + "`");
}

std::map<std::string, model::ObjectManifest> parse_manifest_files(const vcs::FileMap& files, const std::string& commit) {
  std::map<std::string, model::ObjectManifest> out;
  for (const auto& [rel, text] : files) {
    if (rel.size() < 5 || rel.compare(rel.size() - 5, 5, ".toml") != 0) continue;
    const std::string source = commit.substr(0, 12) + ":.tether/objects/" + rel;
    auto m = model::parse_manifest_file(text, source, rel);
    if (out.count(m.key)) throw ConfigError(source + ": a second manifest of key " + model::py_repr(m.key));
    out.emplace(m.key, std::move(m));
  }
  return out;
}

// ---- op log ----

namespace {
std::mutex g_oplog;

// A torn last line must not swallow the next record: start on a fresh line. Takes `fd`
// (opened O_RDWR | O_APPEND) and closes it.
void append_line(int fd, const fs::path& path, const std::string& text) {
  std::string line = text + "\n";
  off_t size = lseek(fd, 0, SEEK_END);
  if (size > 0) {
    char last = '\n';
    if (pread(fd, &last, 1, size - 1) == 1 && last != '\n') line = "\n" + line;
  }
  ssize_t n = ::write(fd, line.data(), line.size());
  int e = errno;
  fsync(fd);
  close(fd);
  if (n != static_cast<ssize_t>(line.size())) throw TetherError("cannot write " + path.string() + ": " + std::strerror(e));
}

std::string stamp_or_now(const StampFn& stamp) { return stamp ? stamp() : model::now_iso_utc_seconds(); }

}  // namespace

void OpLog::append(const Json& line) {
  std::lock_guard lock(g_oplog);
  // Never through a symlink: a committed `.tether/ops.jsonl` link must not be appended to.
  model::Fd fd = model::open_checkout_file(path_, O_RDWR | O_CREAT | O_APPEND, 0600);
  // Entries quote errors and sources (a push URL with a token, an import DSN): no credential
  // is written to the log.
  append_line(fd.release(), path_.full(),
              model::redacted_json(line).dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string OpLog::begin(const std::string& command, const Json& pre, const std::optional<std::string>& parent,
                         const std::optional<std::string>& undoes) {
  std::string id = model::new_op_id();
  append(Json{{"id", id},
              {"at", stamp_or_now(stamp_)},
              {"command", command},
              {"plan", nullptr},
              {"result", Json::object()},
              {"pre", pre},
              {"undoes", undoes ? Json(*undoes) : Json(nullptr)},
              {"undone_by", nullptr},
              {"status", "started"},
              {"progress", Json::array()},
              {"parent", parent ? Json(*parent) : Json(nullptr)}});
  return id;
}

void OpLog::progress(const std::string& id, const Json& record) {
  Json line = record;
  line["progress"] = id;
  append(line);
}

void OpLog::end(const std::string& id, const Json& result) { append(Json{{"done", id}, {"result", result}}); }

void OpLog::end_undo(const std::string& id, const Json& result, const std::string& target) {
  append(Json{{"done", id}, {"result", result}, {"undone", target}, {"by", id}});
}

Json OpEntry::to_json() const {
  return Json{{"id", id},         {"at", at},         {"command", command},     {"plan", plan},
              {"result", result}, {"pre", pre},       {"undoes", undoes},       {"undone_by", undone_by},
              {"status", status}, {"parent", parent}, {"progress", progress}};
}

namespace {

// Calls `fn(line_no, line)` for every line of `in`, `line` null for one longer than
// `max_bytes`: such a line is skipped without ever being held whole in memory.
template <class Fn>
void for_each_line(std::istream& in, std::size_t max_bytes, Fn&& fn) {
  std::string line;
  bool overlong = false;
  std::size_t line_no = 0;
  std::vector<char> buf(std::size_t{1} << 16);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    std::string_view chunk(buf.data(), static_cast<std::size_t>(in.gcount()));
    while (!chunk.empty()) {
      const auto nl = chunk.find('\n');
      const auto part = chunk.substr(0, nl);
      if (!overlong && line.size() + part.size() > max_bytes) {
        overlong = true;
        std::string().swap(line);
      }
      if (!overlong) line.append(part);
      if (nl == std::string_view::npos) break;
      fn(++line_no, overlong ? nullptr : &line);
      line.clear();
      overlong = false;
      chunk.remove_prefix(nl + 1);
    }
  }
  if (!line.empty() || overlong) fn(++line_no, overlong ? nullptr : &line);
}

// The fields of an op-log record have the types OpLog writes, or the record is malformed:
// what reads an OpEntry may then rely on them (result and pre objects, the ids strings).
bool absent_or(const Json& j, const char* key, bool (Json::*is)() const noexcept) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() || ((*it).*is)();
}
bool string_field(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
}
bool well_typed_entry(const Json& j) {
  if (!string_field(j, "id") || !string_field(j, "command")) return false;
  for (const char* k : {"at", "status", "undoes", "undone_by", "parent"})
    if (!absent_or(j, k, &Json::is_string)) return false;
  for (const char* k : {"plan", "result", "pre"})
    if (!absent_or(j, k, &Json::is_object)) return false;
  if (auto p = j.find("progress"); p != j.end() && !p->is_null()) {
    if (!p->is_array()) return false;
    for (const auto& r : *p)
      if (!r.is_object()) return false;
  }
  return true;
}
bool well_typed_done(const Json& j) {
  return string_field(j, "done") && absent_or(j, "result", &Json::is_object) && absent_or(j, "pre", &Json::is_object) &&
         absent_or(j, "undone", &Json::is_string) && absent_or(j, "by", &Json::is_string);
}

}  // namespace

std::vector<OpEntry> OpLog::read(std::vector<std::size_t>* skipped) const {
  std::vector<OpEntry> entries;
  const auto text = model::read_checkout_file(path_);
  if (!text) return entries;
  std::istringstream in(*text);
  std::map<std::string, std::size_t> by_id;
  auto str = [](const Json& j, const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto mark_undone = [&](const std::string& target, const Json& by) {
    if (auto t = by_id.find(target); t != by_id.end()) entries[t->second].undone_by = by;
  };
  // A line that is not JSON within the limits, or whose fields have the wrong types, is
  // skipped and reported; the rest of the log still counts (undo and repair must keep working).
  auto malformed = [&](std::size_t line_no) {
    if (skipped) skipped->push_back(line_no);
  };
  for_each_line(in, model::kMaxRecordBytes, [&](std::size_t line_no, const std::string* line) {
    if (!line) return malformed(line_no);
    if (line->find_first_not_of(" \t\r") == std::string::npos) return;
    auto parsed = model::try_parse_json(*line, {model::kMaxRecordBytes, model::kMaxWrappedNesting});
    if (!parsed || !parsed->is_object()) return malformed(line_no);
    const Json& j = *parsed;
    if (j.contains("id") && j.contains("command")) {
      if (!well_typed_entry(j)) return malformed(line_no);
      OpEntry e;
      e.id = str(j, "id");
      e.at = str(j, "at");
      e.command = str(j, "command");
      e.status = str(j, "status") == "done" ? "done" : "started";
      e.plan = j.value("plan", Json(nullptr));
      if (auto r = j.find("result"); r != j.end() && r->is_object()) e.result = *r;
      if (auto p = j.find("pre"); p != j.end() && p->is_object()) e.pre = *p;
      e.undoes = j.value("undoes", Json(nullptr));
      e.undone_by = j.value("undone_by", Json(nullptr));
      e.parent = j.value("parent", Json(nullptr));
      if (auto p = j.find("progress"); p != j.end() && p->is_array()) e.progress = *p;
      by_id[e.id] = entries.size();
      entries.push_back(std::move(e));
    } else if (j.contains("done")) {
      if (!well_typed_done(j)) return malformed(line_no);
      auto it = by_id.find(str(j, "done"));
      if (it == by_id.end()) return;
      OpEntry& e = entries[it->second];
      e.status = "done";
      if (auto r = j.find("result"); r != j.end() && r->is_object()) e.result = *r;
      if (auto p = j.find("pre"); p != j.end() && p->is_object()) e.pre.update(*p);
      if (j.contains("undone") && j["undone"].is_string()) mark_undone(str(j, "undone"), j.value("by", Json(e.id)));
    } else if (j.contains("undone")) {  // legacy standalone undo mark
      if (!string_field(j, "undone") || !absent_or(j, "by", &Json::is_string)) return malformed(line_no);
      mark_undone(str(j, "undone"), j.value("by", Json(nullptr)));
    } else if (j.contains("progress")) {
      if (!string_field(j, "progress")) return malformed(line_no);
      auto it = by_id.find(j["progress"].get<std::string>());
      if (it == by_id.end()) return;
      Json rec = j;
      rec.erase("progress");
      entries[it->second].progress.push_back(std::move(rec));
    }
    // Any other object is a record kind this version does not know: ignored, not malformed.
  });
  return entries;
}

std::string OpLog::skipped_warning(const std::string& shown, const std::vector<std::size_t>& lines) {
  std::string which;
  const std::size_t listed = std::min<std::size_t>(lines.size(), 5);
  for (std::size_t i = 0; i < listed; ++i) which += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > listed) which += " and " + std::to_string(lines.size() - listed) + " more";
  return shown + ": skipped " + std::to_string(lines.size()) + " malformed line(s) (line" + (lines.size() > 1 ? "s " : " ") +
         which + "); the operations on them are left out";
}

// ---- the pinned index ----

namespace {
std::vector<Json> read_lines(const fs::path& path) {
  std::vector<Json> out;
  std::ifstream in(path, std::ios::binary);
  for_each_line(in, model::kMaxDocumentBytes, [&](std::size_t, const std::string* line) {
    if (!line) return;
    auto j = model::try_parse_json(*line);
    if (j && j->is_object()) out.push_back(std::move(*j));
  });
  return out;
}
}  // namespace

bool PinIndex::exists() const {
  std::error_code ec;
  return fs::exists(path_, ec);
}

namespace {
// The top-level "pin_id" string of one JSON line, read without building the document (the
// index has a line per pin ever made: 30,000 at 10,000 commits). It keeps what
// try_parse_json + find would: a line that is not valid JSON, or nests deeper than the limit,
// names nothing; of repeated keys the last wins.
class PinIdOfLine : public nlohmann::json_sax<Json> {
 public:
  std::optional<std::string> pin_id;
  bool null() override { return value_seen(); }
  bool boolean(bool) override { return value_seen(); }
  bool number_integer(number_integer_t) override { return value_seen(); }
  bool number_unsigned(number_unsigned_t) override { return value_seen(); }
  bool number_float(number_float_t, const string_t&) override { return value_seen(); }
  bool binary(binary_t&) override { return value_seen(); }
  bool string(string_t& val) override {
    if (depth_ == 1 && at_pin_id_) {
      pin_id = std::move(val);
      at_pin_id_ = false;
      return true;
    }
    return value_seen();
  }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool key(string_t& val) override {
    at_pin_id_ = depth_ == 1 && val == "pin_id";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool value_seen() {
    if (depth_ == 1 && at_pin_id_) pin_id.reset();  // a later non-string "pin_id" replaces the string
    at_pin_id_ = false;
    return true;
  }
  bool open() {
    if (depth_ == 1 && at_pin_id_) pin_id.reset();
    at_pin_id_ = false;
    return ++depth_ <= model::kMaxNesting;
  }
  bool close() {
    --depth_;
    return true;
  }
  std::size_t depth_ = 0;
  bool at_pin_id_ = false;
};
}  // namespace

std::set<std::string> PinIndex::known() const {
  std::set<std::string> ids;
  std::ifstream in(path_, std::ios::binary);
  for_each_line(in, model::kMaxDocumentBytes, [&](std::size_t, const std::string* line) {
    if (!line) return;
    PinIdOfLine sax;
    if (!Json::sax_parse(*line, &sax) || !sax.pin_id) return;
    ids.insert(std::move(*sax.pin_id));
  });
  return ids;
}

// One line appended to a repository-wide index (the git dir's, never the checkout's), best
// effort: a failure is returned as a message.
static std::optional<std::string> append_index_line(const fs::path& path, const Json& record) {
  try {
    std::lock_guard lock(g_oplog);
    fs::create_directories(path.parent_path());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw TetherError("cannot write " + path.string() + ": " + std::strerror(errno));
    append_line(fd, path, record.dump());
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

std::optional<std::string> PinIndex::claim(const std::string& dataset_id, const std::string& kind,
                                           const std::string& pin_id) {
  return append_index_line(path_, Json{{"dataset_id", dataset_id}, {"kind", kind}, {"pin_id", pin_id}, {"at", stamp_or_now(stamp_)}});
}

void PinIndex::release(const std::set<std::string>& pin_ids) {
  if (pin_ids.empty() || !exists()) return;
  std::lock_guard lock(g_oplog);
  std::string text;
  bool changed = false;
  for (const auto& j : read_lines(path_)) {
    auto it = j.find("pin_id");
    if (it != j.end() && it->is_string() && pin_ids.count(it->get<std::string>())) {
      changed = true;
      continue;
    }
    text += j.dump() + "\n";
  }
  if (changed) model::atomic_write_file(path_, text);
}

// ---- the created-stores and touched-stores indexes ----

std::string StoreRecord::store_id() const { return kind + "\n" + support::canonical_json(identity); }

namespace {
std::optional<StoreRecord> created_of(const Json& j) {
  auto s = [&](const char* k) -> const std::string* {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  if (!s("dataset_id") || !s("kind") || !s("key")) return std::nullopt;
  auto id = j.find("identity");
  auto loc = j.find("locator");
  if (id == j.end() || !id->is_object() || loc == j.end() || !loc->is_object()) return std::nullopt;
  StoreRecord c;
  c.dataset_id = *s("dataset_id");
  c.kind = *s("kind");
  c.key = *s("key");
  if (s("bookmark")) c.bookmark = *s("bookmark");
  if (s("at")) c.at = *s("at");
  c.identity = *id;
  c.locator = *loc;
  return c;
}
}  // namespace

std::optional<std::string> StoreIndex::record(StoreRecord c) {
  if (c.at.empty()) c.at = stamp_or_now(stamp_);
  Json line{{"dataset_id", c.dataset_id}, {"kind", c.kind}, {"identity", c.identity},
            {"locator", c.locator}, {"key", c.key}, {"at", c.at}};
  if (!c.bookmark.empty()) line["bookmark"] = c.bookmark;
  return append_index_line(path_, line);
}

std::vector<StoreRecord> StoreIndex::stores() const {
  std::vector<StoreRecord> out;
  std::map<std::string, std::size_t> at;  // dataset + store id -> index in out
  for (const auto& j : read_lines(path_)) {
    auto c = created_of(j);
    if (!c) continue;
    const std::string id = c->dataset_id + "\n" + c->store_id();
    if (auto it = at.find(id); it != at.end()) {
      out[it->second] = std::move(*c);
      continue;
    }
    at[id] = out.size();
    out.push_back(std::move(*c));
  }
  return out;
}

std::size_t StoreIndex::rewrite(const std::function<bool(StoreRecord&)>& change) {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return 0;
  std::lock_guard lock(g_oplog);
  std::string text;
  std::size_t changed = 0;
  for (auto j : read_lines(path_)) {
    if (auto c = created_of(j); c && change(*c)) {
      ++changed;
      j["identity"] = c->identity;
      j["locator"] = c->locator;
    }
    text += j.dump() + "\n";
  }
  if (changed) model::atomic_write_file(path_, text);
  return changed;
}

void StoreIndex::forget(const std::string& dataset_id, const std::set<std::string>& store_ids) {
  std::error_code ec;
  if (store_ids.empty() || !fs::exists(path_, ec)) return;
  std::lock_guard lock(g_oplog);
  std::string text;
  bool changed = false;
  for (const auto& j : read_lines(path_)) {
    if (auto c = created_of(j); c && c->dataset_id == dataset_id && store_ids.count(c->store_id())) {
      changed = true;
      continue;
    }
    text += j.dump() + "\n";
  }
  if (changed) model::atomic_write_file(path_, text);
}

}  // namespace tether::engine

namespace tether::engine {

// To the warning sink, or into warnings; each distinct text once.
static void warn(const Context& cx, const std::string& text) {
  if (!cx.warned.insert(text).second) return;
  if (cx.warning_sink) cx.warning_sink(text);
  else cx.warnings.push_back(text);
}

std::vector<OpEntry> read_ops(const Context& cx, const std::optional<std::filesystem::path>& checkout,
                              std::vector<std::size_t>* skipped_out) {
  const model::CheckoutPath p = model::tether_path(checkout ? *checkout : cx.root, "ops.jsonl");
  std::vector<std::size_t> skipped;
  auto entries = OpLog(p).read(&skipped);
  const bool mine = !checkout || *checkout == cx.root;
  if (!skipped.empty()) warn(cx, OpLog::skipped_warning(mine ? p.name() : p.full().string(), skipped));
  if (skipped_out) *skipped_out = std::move(skipped);
  return entries;
}

std::optional<std::string> write_listing(Context& cx, const model::ObjectManifest& m, const Json& state) {
  if (!(cx.effective_capabilities(m) & sdk::kDiff)) return std::nullopt;
  auto& b = cx.backend(m.kind);
  auto text = b.listing(m.locator, state, m.key);
  if (!text) return std::nullopt;
  const std::string name = model::listing_name(m.kind, b.identity(m.locator, m.key), b.content_state(state));
  const auto p = tether_dir(cx) / "listings" / name;
  if (model::checkout_entry_exists(p)) return std::nullopt;
  model::write_checkout_file(p, *text);
  return name;
}

void record_touched(Context& cx, const std::string& key, const std::string& kind, const Json& locator) {
  try {
    StoreRecord rec;
    rec.identity = cx.backend(kind).identity(locator, key);
    std::lock_guard lock(cx.touched_mu);
    const std::string id = kind + "\n" + support::canonical_json(rec.identity);
    if (!cx.touched) {
      cx.touched.emplace();
      for (const auto& r : touched_index(cx).stores())
        if (r.dataset_id == cx.dataset_id) cx.touched->insert(r.store_id());
    }
    if (cx.touched->count(id)) return;
    rec.dataset_id = cx.dataset_id;
    rec.kind = kind;
    rec.key = key;
    rec.locator = locator;
    if (auto failed = touched_index(cx).record(rec)) throw TetherError(*failed);
    cx.touched->insert(id);
  } catch (const std::exception& e) {
    warn(cx, "could not record " + key + " in the touched-store index: " + e.what());
  }
}

void warn_skipped_ops(const Context& cx, const model::CheckoutPath& log, const std::vector<std::size_t>& skipped) {
  if (!skipped.empty()) warn(cx, OpLog::skipped_warning(log.name(), skipped));
}

}  // namespace tether::engine
