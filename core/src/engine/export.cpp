// core/src/engine/export.cpp: the registry tables of a history (docs/registry.md).
//
// One walk over the exported commits. The VCS hands back one shared file map per distinct
// objects/ tree, so a tree that many commits share is turned into rows once; a manifest text
// that many trees share is parsed, hashed and asked for its identity once. Every cell's text
// is interned in the bundle, so 10,000 commits of 50 mostly unchanged objects cost 50 rows'
// worth of strings plus the commit ids.
#include <algorithm>
#include <array>
#include <chrono>
#include <unordered_map>
#include <unordered_set>
#include <map>
#include <set>
#include <tuple>

#include "engine/internal.hpp"
#include "tether/engine/export.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/framed_hash.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/registry/registry.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace {

using registry::Cell;

std::string iso_of(std::int64_t seconds) {
  return model::format_iso_utc(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)));
}

// The 14 cells of an `objects` row after commit_id, and what the other tables need of it.
struct ObjectCells {
  std::string key;
  std::array<Cell, 14> cells;
  std::string hash_part;  // cb([key, canonical text]): this manifest's part of manifest_hash
  bool has_state = false;
  std::string kind, identity_hash, state_hash;  // for object_states (hash "" = null)
  Cell identity_json, state_json, pin_id;
  std::optional<std::string> listing;  // listing name (state and identity known)
};

}  // namespace

// Building the bundle, table by table: the commits to export, then per distinct tree and
// manifest text the `objects` rows (each made once), then commits / commit_parents /
// objects, object_states, refs, and the opt-in listings and workspace tables, and
// tether_meta.
struct Exporter {
  struct TreeRows {
    std::vector<std::shared_ptr<const ObjectCells>> objects;  // sorted by key
    std::string manifest_hash;
  };

  Context& cx;
  const ExportOptions& opt;
  registry::Bundle b;
  std::vector<vcs::CommitInfo> commits;
  std::unordered_map<std::string, std::size_t> index;  // commit id -> position in `commits`
  std::string dir;                                      // .tether/objects in the VCS
  std::unordered_map<std::string, std::optional<Json>> identity_of;  // canonical [kind, locator]
  std::unordered_map<const std::string*, std::shared_ptr<const ObjectCells>> by_text;  // vcs::Text::id()
  std::unordered_map<const vcs::FileMap*, std::shared_ptr<const TreeRows>> by_tree;
  std::vector<std::shared_ptr<const vcs::FileMap>> keep_files;  // by_text's keys point into them
  std::vector<std::shared_ptr<const TreeRows>> rows_of;         // per commit; null when skipped
  std::vector<Cell> committed_at;                               // per commit
  std::vector<model::FramedBlake2b> hashed;                     // manifest_hash: the last tree's states
  std::vector<const ObjectCells*> hashed_parts;                 // ... and its manifests (by_text keeps them)

  Exporter(Context& r, const ExportOptions& o) : cx(r), opt(o) {}

  registry::Bundle run() {
    b.exported_at = now_iso_seconds(cx);
    b.head = cx.vcs->head().value_or("");
    dir = vcs_path(cx, ".tether/objects");
    select_commits();
    add_commits();
    add_object_states();
    add_refs();
    if (opt.listings) add_listings();
    if (opt.workspace) add_workspace();
    add_meta();
    return std::move(b);
  }

  // The exported commits: --rev's, else HEAD (without all_history), else every reachable one.
  void select_commits() {
    std::unordered_set<std::string> seen;
    auto add_rev = [&](const std::string& rev) {
      vcs::HistoryQuery q;
      q.rev = cx.vcs->resolve(rev);
      q.limit = 1;
      for (auto& c : cx.vcs->history(q))
        if (seen.insert(c.id).second) commits.push_back(std::move(c));
    };
    if (!opt.revs.empty()) {
      for (const auto& r : opt.revs) add_rev(r);
    } else if (!opt.all_history) {
      if (!b.head.empty()) add_rev(b.head);
    } else if (b.head.empty() && cx.vcs->branches().empty()) {
      // an unborn repository: nothing to walk
    } else {
      vcs::HistoryQuery q;
      q.all = true;
      commits = cx.vcs->history(q);
    }
    for (std::size_t i = 0; i < commits.size(); ++i) index.emplace(commits[i].id, i);
  }

  // An object's identity, asked once per (kind, locator); null when its backend is not
  // installed here or refuses the locator.
  const std::optional<Json>& identity(const model::ObjectManifest& m) {
    std::string sig = support::canonical_json(Json::array({m.kind, m.locator}));
    auto it = identity_of.find(sig);
    if (it != identity_of.end()) return it->second;
    std::optional<Json> id;
    try {
      id = cx.backend(m.kind).identity(m.locator, m.key);
    } catch (const std::exception&) {
    }
    return identity_of.emplace(std::move(sig), std::move(id)).first->second;
  }

  std::shared_ptr<const ObjectCells> object_cells(const model::ObjectManifest& m) {
    auto oc = std::make_shared<ObjectCells>();
    oc->key = m.key;
    oc->kind = m.kind;
    oc->hash_part = support::canonical_json(Json::array({m.key, m.canonical()}));
    const auto& id = identity(m);
    Cell uri = Cell::null();
    if (auto u = m.locator.find("uri"); u != m.locator.end() && u->is_string()) uri = b.text(u->get<std::string>());
    Cell id_json = Cell::null(), id_hash = Cell::null();
    if (id) {
      std::string cj = support::canonical_json(*id);
      oc->identity_hash = model::framed_blake2b({cj}, 16);
      id_json = b.text(cj);
      id_hash = b.text(oc->identity_hash);
    }
    Cell state_json = Cell::null(), state_hash = Cell::null();
    if (m.state) {
      oc->has_state = true;
      Json content = *m.state;
      if (id) {
        try {
          content = cx.backend(m.kind).content_state(*m.state);
          oc->listing = model::listing_name(m.kind, *id, content);
        } catch (const std::exception&) {
          content = *m.state;
        }
      }
      oc->state_hash = model::framed_blake2b({support::canonical_json(content)}, 16);
      state_json = b.text(support::canonical_json(*m.state));
      state_hash = b.text(oc->state_hash);
    }
    Cell pin_id = m.pin ? b.text(m.pin->id) : Cell::null();
    Cell pin_ref = m.pin ? b.text(m.pin->ref) : Cell::null();
    oc->identity_json = id_json;
    oc->state_json = state_json;
    oc->pin_id = pin_id;
    oc->cells = {b.text(m.key),
                 b.text(m.kind),
                 uri,
                 b.text(support::canonical_json(m.locator)),
                 id_json,
                 id_hash,
                 b.text(m.policy.file),
                 b.text(m.policy.pin),
                 state_json,
                 state_hash,
                 pin_id,
                 pin_ref,
                 Cell::boolean(m.recoverable),
                 b.text_or_null(m.captured_at)};
    return oc;
  }

  // A commit's `objects` rows and manifest hash, made once per distinct tree.
  std::shared_ptr<const TreeRows> tree_rows(const std::string& commit) {
    auto files = cx.vcs->manifests_at(commit, dir);
    auto known = by_tree.find(files.get());
    if (known != by_tree.end()) return known->second;
    keep_files.push_back(files);
    auto rows = std::make_shared<TreeRows>();
    for (const auto& [rel, text] : *files) {
      auto it = by_text.find(text.id());
      if (it == by_text.end()) {
        vcs::FileMap one{{rel, text}};
        auto parsed = parse_manifest_files(one, commit);
        if (parsed.empty()) continue;  // not a manifest (no .toml)
        it = by_text.emplace(text.id(), object_cells(parsed.begin()->second)).first;
      }
      rows->objects.push_back(it->second);
    }
    std::sort(rows->objects.begin(), rows->objects.end(), [](const auto& x, const auto& y) { return x->key < y->key; });
    rows->manifest_hash = manifest_hash(rows->objects);
    by_tree.emplace(files.get(), rows);
    return rows;
  }

  // The manifest hash (docs/FORMAT.md#manifest-hash) over the parts each distinct manifest
  // made once. The hash state after each part of the previous tree is kept: the history comes
  // one commit after the other, and a tree shares most of its manifests with the one before,
  // so only the parts from the first difference on are hashed (the same digest as hashing
  // them all).
  std::string manifest_hash(const std::vector<std::shared_ptr<const ObjectCells>>& objects) {
    if (hashed.empty()) hashed.emplace_back(32);
    std::size_t same = 0;
    while (same < objects.size() && same < hashed_parts.size() &&
           (hashed_parts[same] == objects[same].get() || hashed_parts[same]->hash_part == objects[same]->hash_part))
      ++same;
    hashed.resize(same + 1, model::FramedBlake2b(32));  // hashed[k]: the state after k parts
    hashed_parts.resize(same);
    for (std::size_t k = same; k < objects.size(); ++k) {
      hashed.push_back(hashed.back());
      hashed.back().add(objects[k]->hash_part);
      hashed_parts.push_back(objects[k].get());
    }
    return hashed.back().hex();
  }

  // commits, commit_parents, objects.
  void add_commits() {
    auto& t_commits = b["commits"];
    auto& t_parents = b["commit_parents"];
    auto& t_objects = b["objects"];
    t_commits.reserve(commits.size());
    rows_of.resize(commits.size());
    committed_at.resize(commits.size());
    // First every commit's tree (the walk, which the progress reports), then the rows into
    // tables sized once: `objects` is most of the bundle (500,000 rows of 15 cells for 10,000
    // commits of 50 objects), and growing it by doubling copied it all again.
    std::size_t done = 0, parents = 0, objects = 0;
    for (std::size_t i = 0; i < commits.size(); ++i) {
      const auto& c = commits[i];
      if (opt.skip && opt.skip->contains(c.id)) {  // the target has its rows: its tree is not read
        ++b.omitted_commits;
      } else {
        rows_of[i] = tree_rows(c.id);
        parents += c.parents.size();
        objects += rows_of[i]->objects.size();
      }
      if (opt.progress) opt.progress(++done, commits.size());
    }
    t_parents.reserve(parents);
    t_objects.reserve(objects);
    for (std::size_t i = 0; i < commits.size(); ++i) {
      const auto& c = commits[i];
      committed_at[i] = b.text(iso_of(c.time));
      if (!rows_of[i]) continue;
      Cell id = b.text(c.id);
      t_commits.add_row({id, Cell::null(), b.text(c.author_name), b.text(c.author_email), b.text(iso_of(c.author_time)),
                         committed_at[i], b.text(c.message), b.text(rows_of[i]->manifest_hash)});
      for (std::size_t p = 0; p < c.parents.size(); ++p)
        t_parents.add_row({id, b.text(c.parents[p]), Cell::integer(static_cast<std::int64_t>(p))});
      std::array<Cell, 15> row;
      row[0] = id;
      for (const auto& o : rows_of[i]->objects) {
        std::copy(o->cells.begin(), o->cells.end(), row.begin() + 1);
        t_objects.add_row(row);
      }
    }
  }

  // Each commit's ancestry depth within the exported commits.
  std::vector<std::size_t> depths() const {
    // History comes children first, so walking it backwards visits parents first.
    std::vector<std::size_t> depth(commits.size(), 0);
    for (std::size_t n = commits.size(); n-- > 0;) {
      for (const auto& p : commits[n].parents) {
        auto it = index.find(p);
        if (it != index.end()) depth[n] = std::max(depth[n], depth[it->second] + 1);
      }
    }
    // --rev lists may come in any order: settle depths until stable (a handful of commits).
    if (!opt.revs.empty()) {
      for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t n = 0; n < commits.size(); ++n)
          for (const auto& p : commits[n].parents) {
            auto it = index.find(p);
            if (it != index.end() && depth[it->second] + 1 > depth[n]) {
              depth[n] = depth[it->second] + 1;
              changed = true;
            }
          }
      }
    }
    return depth;
  }

  struct StateRow {
    const ObjectCells* first;
    std::size_t commit;
    Cell pin_id;
  };
  // Views into the ObjectCells, which live as long as the Exporter.
  using StateRows = std::map<std::tuple<std::string_view, bool, std::string_view, std::string_view>, StateRow>;

  // Under `skip`: a state the built commits record may have been recorded earlier by a
  // skipped commit. The target's object_states row names its first commit; when that is a
  // skipped commit of this walk it takes part in the order. When the walk does not have it
  // (the branch moved back, or a row written by hand), the target's objects rows say which
  // skipped commits record the state. Commit ids the walk does not have, or that are not
  // skipped, are ignored: the target's rows only ever stand for commits it holds.
  void settle_skipped_states(StateRows& states, const std::vector<std::size_t>& order) {
    std::vector<std::size_t> rank(commits.size());
    for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
    auto skipped = [&](const registry::StateRecord& rec) -> const std::size_t* {
      auto it = index.find(rec.commit_id);
      return it != index.end() && opt.skip->contains(it->first) ? &it->second : nullptr;
    };
    // The first commit by rank; its pin, else the next pin in rank order.
    auto settle = [&](StateRow& s, const std::vector<registry::StateRecord>& records) {
      std::vector<std::pair<std::size_t, Cell>> seen{{rank[s.commit], s.pin_id}};
      for (const auto& rec : records)
        if (const std::size_t* c = skipped(rec))
          seen.emplace_back(rank[*c], rec.pin_id ? b.text(*rec.pin_id) : Cell::null());
      std::stable_sort(seen.begin(), seen.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      s.commit = order[seen.front().first];
      s.pin_id = Cell::null();
      for (const auto& [r, pin] : seen)
        if (!pin.is_null()) {
          s.pin_id = pin;
          break;
        }
    };
    std::vector<registry::StateKey> keys;
    std::vector<StateRow*> rows;
    for (auto& [k, s] : states) {
      keys.push_back({std::string(std::get<0>(k)), std::string(std::get<2>(k)), std::string(std::get<3>(k))});
      rows.push_back(&s);
    }
    const auto first = opt.first_records(keys);
    std::vector<registry::StateKey> lost_keys;
    std::vector<StateRow*> lost_rows;
    for (std::size_t j = 0; j < rows.size() && j < first.size(); ++j) {
      if (first[j].empty()) continue;  // not stored: only the built commits record it
      if (skipped(first[j].front())) {
        settle(*rows[j], first[j]);
      } else {
        lost_keys.push_back(std::move(keys[j]));
        lost_rows.push_back(rows[j]);
      }
    }
    if (lost_keys.empty() || !opt.all_records) return;
    const auto all = opt.all_records(lost_keys);
    for (std::size_t j = 0; j < lost_rows.size() && j < all.size(); ++j) settle(*lost_rows[j], all[j]);
  }

  // object_states: each distinct state once, at the first commit by (ancestry depth,
  // committed_at, commit_id) that records it. Under `skip`, only the states the built
  // commits record, with the skipped commits brought in by settle_skipped_states.
  void add_object_states() {
    const auto depth = depths();
    std::vector<std::size_t> order(commits.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      if (depth[x] != depth[y]) return depth[x] < depth[y];
      if (commits[x].time != commits[y].time) return commits[x].time < commits[y].time;
      return commits[x].id < commits[y].id;
    });
    // (kind, has identity, identity_hash, state_hash) sorts nulls first, as SQL would not care.
    StateRows states;
    // A manifest seen before (the same ObjectCells: most commits share most of them) already
    // made its key and offered its pin: seeing it again changes nothing.
    std::unordered_set<const ObjectCells*> seen;
    for (std::size_t i : order) {
      if (!rows_of[i]) continue;
      for (const auto& o : rows_of[i]->objects) {
        if (!o->has_state || !seen.insert(o.get()).second) continue;
        auto [it, inserted] = states.try_emplace({o->kind, !o->identity_hash.empty(), o->identity_hash, o->state_hash},
                                                 StateRow{o.get(), i, o->pin_id});
        if (!inserted && it->second.pin_id.is_null() && !o->pin_id.is_null()) it->second.pin_id = o->pin_id;
      }
    }
    if (opt.skip && opt.first_records && !states.empty()) settle_skipped_states(states, order);
    auto& t = b["object_states"];
    for (const auto& [k, s] : states) {
      const auto& o = *s.first;
      t.add_row({b.text(o.kind), o.identity_hash.empty() ? Cell::null() : b.text(o.identity_hash), b.text(o.state_hash),
                 o.identity_json, o.state_json, s.pin_id, b.text(commits[s.commit].id), committed_at[s.commit]});
    }
  }

  // refs: only those naming an exported commit.
  void add_refs() {
    auto& t = b["refs"];
    for (const auto& [name, id] : cx.vcs->branches())
      if (index.contains(id)) t.add_row({b.text(name), b.text("branch"), b.text(id)});
    for (const auto& [name, id] : cx.vcs->tags())
      if (index.contains(id)) t.add_row({b.text(name), b.text("tag"), b.text(id)});
    if (!b.head.empty() && index.contains(b.head)) t.add_row({b.text("HEAD"), b.text("head"), b.text(b.head)});
  }

  // listings and listing_entries (opt-in): the working tree's copies of the listings the
  // exported states name.
  void add_listings() {
    std::map<std::string, const ObjectCells*> owner;  // listing name -> the first state naming it
    for (const auto& rows : rows_of) {
      if (!rows) continue;
      for (const auto& o : rows->objects)
        if (o->listing) owner.try_emplace(*o->listing, o.get());
    }
    auto& t_list = b["listings"];
    for (const auto& [name, o] : owner) {
      auto text = read_listing(cx, name, std::nullopt);
      if (!text) continue;
      const std::int64_t count = add_listing_entries(name, *text);
      t_list.add_row({b.text(name), b.text(o->kind), b.text(o->identity_hash), b.text(o->state_hash), Cell::integer(count)});
    }
  }

  // One listing's lines as listing_entries rows; returns how many.
  std::int64_t add_listing_entries(const std::string& name, const std::string& text) {
    auto& t_entries = b["listing_entries"];
    std::int64_t count = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + start, end - start);
      start = end + 1;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      std::string why;
      auto parsed = model::try_parse_json(line, {}, &why);  // a listing line is one small document
      if (!parsed) throw TetherError(".tether/listings/" + name + ": not a listing line: " + why);
      Json e = std::move(*parsed);
      if (!e.is_object()) throw TetherError(".tether/listings/" + name + ": a listing line is not a JSON object");
      std::string path = str_of(e, "p");
      std::string token = e.contains("k") && e["k"].is_string() ? e["k"].get<std::string>() : std::string();
      std::int64_t size = e.contains("s") && e["s"].is_number_integer() ? e["s"].get<std::int64_t>() : 0;
      t_entries.add_row({b.text(name), b.text(path), token.empty() ? Cell::null() : b.text(token), Cell::integer(size)});
      ++count;
    }
    return count;
  }

  // workspace (opt-in): this checkout's working refs and baselines.
  void add_workspace() {
    const auto& ws = *cx.workspace;
    std::set<std::string> keys;
    for (const auto& [k, v] : ws.working_refs) keys.insert(k);
    for (const auto& [k, v] : ws.last_snapshot) keys.insert(k);
    auto json_cell = [&](const std::map<std::string, Json>& m, const std::string& k) {
      auto it = m.find(k);
      return it == m.end() ? Cell::null() : b.text(support::canonical_json(it->second));
    };
    auto& t = b["workspace"];
    for (const auto& k : keys) {
      auto ref = ws.working_refs.find(k);
      t.add_row({b.text(ws.workspace_id), b.text(k), ref == ws.working_refs.end() ? Cell::null() : b.text(ref->second),
                 json_cell(ws.base_states, k), json_cell(ws.fork_points, k), json_cell(ws.last_snapshot, k)});
    }
  }

  void add_meta() {
    auto& meta = b["tether_meta"];
    meta.add_row({b.text("schema_version"), b.text(std::to_string(registry::kSchemaVersion))});
    meta.add_row({b.text("exported_at"), b.text(b.exported_at)});
    meta.add_row({b.text("head"), b.text(b.head)});
    meta.add_row({b.text("vcs"), b.text(cx.vcs->kind())});
    meta.add_row({b.text("tether_version"), b.text(TETHER_VERSION)});
  }
};

registry::Bundle export_bundle(Repo& repo, const ExportOptions& opt) { Context& cx = Context::of(repo); return Exporter(cx, opt).run(); }

Json ExportResult::to_json() const {
  Json counts = Json::object();
  for (const auto& [t, n] : rows) counts[t] = n;
  return Json{{"path", path}, {"format", format}, {"head", head.empty() ? Json(nullptr) : Json(head)}, {"rows", counts}};
}

}  // namespace tether::engine
