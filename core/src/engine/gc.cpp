// core/src/engine/gc.cpp: `tether gc` (docs/cli.md): release what no commit references.
//
// Planning walks every commit reachable in the repository once (the VCS caches trees and
// blobs by id, and a manifest text seen before is not parsed again), plus the working trees of
// every live checkout and the pins their unfinished operations name. References are grouped
// per store (kind + the backend's ref namespace); each store with pins is asked for its pins
// once, and only this dataset's unreferenced pins are released -- and only those this clone
// created (the pinned index and the op logs say which), unless --release-foreign. A store
// that cannot be listed is reported as failed and nothing of it is released.
#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/history_index.hpp"
#include "engine/internal.hpp"
#include "engine/undoer.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/gc.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/names.hpp"
#include "tether/model/workspace.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace fs = std::filesystem;

namespace tether::engine {

namespace {

// What a stored plan says it could not list (its "unreachable": what -> why); none when absent.
std::map<std::string, std::string> unreachable_of(const ContextReader& r) {
  std::map<std::string, std::string> out;
  const Json* u = r.find("unreachable");
  if (!u) return out;
  if (!u->is_object()) r.refuse("unreachable", "is not an object of strings");
  for (const auto& [what, why] : u->items()) {
    if (!why.is_string()) r.refuse("unreachable", "is not an object of strings");
    out[what] = why.get<std::string>();
  }
  return out;
}

// What a gc plan decided and reviewed (its context): the options it was planned with, the
// bookmark drop scoped it to, and the stores it could not list.
struct GcPayload {
  std::string workspace_id;
  bool prune_bookmarks = false, prune_workspaces = false, force_prune = false, release_foreign = false,
       listings_only = false;
  std::vector<std::string> keep_bookmarks;
  std::optional<std::string> scope;  // drop's bookmark: such a plan is drop's, not `tether gc`'s
  std::string manifest_hash;
  std::optional<std::string> vcs_head;
  std::string history_digest;
  std::size_t commits = 0;  // how many commits the plan walked
  std::map<std::string, std::string> unreachable;  // written only when any
  bool delete_stores = false;                       // written only when set (with the stores named)
  std::vector<std::pair<std::string, Json>> stores;

  Json to_json() const {
    Json j{{"workspace_id", workspace_id},
           {"prune_bookmarks", prune_bookmarks},
           {"prune_workspaces", prune_workspaces},
           {"keep_bookmarks", keep_bookmarks},
           {"force_prune", force_prune},
           {"release_foreign", release_foreign},
           {"listings_only", listings_only},
           {"scope", scope ? Json(*scope) : Json(nullptr)},
           {"manifest_hash", manifest_hash},
           {"vcs_head", vcs_head ? Json(*vcs_head) : Json(nullptr)},
           {"history_digest", history_digest},
           {"commits", commits}};
    if (!unreachable.empty()) j["unreachable"] = unreachable;
    if (delete_stores) {
      j["delete_stores"] = true;
      Json named = Json::array();
      for (const auto& [kind, loc] : stores) named.push_back(Json::array({kind, loc}));
      j["stores"] = named;
    }
    return j;
  }
  static GcPayload from(const Plan& plan) {
    const ContextReader r{plan.context, "gc"};
    GcPayload p;
    p.workspace_id = r.string("workspace_id");
    p.prune_bookmarks = r.boolean("prune_bookmarks");
    p.prune_workspaces = r.boolean("prune_workspaces");
    p.keep_bookmarks = r.strings("keep_bookmarks");
    p.force_prune = r.boolean("force_prune");
    p.release_foreign = r.boolean("release_foreign");
    p.listings_only = r.boolean("listings_only");
    p.scope = r.string_or_null("scope");
    p.manifest_hash = r.string("manifest_hash");
    p.vcs_head = r.string_or_null("vcs_head");
    p.history_digest = r.string("history_digest");
    p.commits = r.count("commits");
    p.unreachable = unreachable_of(r);
    if (const Json* d = r.find("delete_stores")) {
      if (!d->is_boolean()) r.refuse("delete_stores", "is not a boolean");
      p.delete_stores = d->get<bool>();
    }
    if (const Json* named = r.find("stores")) {
      if (!named->is_array()) r.refuse("stores", "is not a list of [kind, locator]");
      for (const auto& e : *named) {
        if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_object())
          r.refuse("stores", "is not a list of [kind, locator]");
        p.stores.emplace_back(e[0].get<std::string>(), e[1]);
      }
    }
    return p;
  }
};

// One store as gc sees it: every object whose backend puts refs in the same namespace.
struct Group {
  std::string kind, key;  // key: the object named in actions (the working tree's when it has one)
  Json locator;
  uint32_t caps = 0;
  std::set<std::string> pins;  // referenced pin ids
  // The states manifests record (canonical JSON), pinned or recoverable; what a working
  // ref's head is compared with are their content states, computed when first needed.
  std::unordered_set<std::string> pinned_raw, recorded_raw;
  mutable std::optional<std::unordered_set<std::string>> pinned_states, recorded_states;
};

// Pin-id-shaped words (`<8 hex>.<16 hex>`) of a text: what an unparsable manifest may name.
std::vector<std::string> pin_ids_in(const std::string& text) {
  std::vector<std::string> out;
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  for (std::size_t i = 0; i + 25 <= text.size(); ++i) {
    if (i > 0 && hex(text[i - 1])) continue;
    std::size_t j = i;
    while (j < text.size() && j - i < 8 && hex(text[j])) ++j;
    if (j - i != 8 || j >= text.size() || text[j] != '.') continue;
    std::size_t k = j + 1;
    while (k < text.size() && hex(text[k])) ++k;
    if (k - j - 1 >= 12) out.push_back(text.substr(i, k - i));
  }
  return out;
}

void add_to(std::map<std::string, std::vector<std::string>>& m, const std::string& k, const std::string& v) {
  m[k].push_back(v);
}

}  // namespace

bool GcReport::wrote_anything() const {
  return !unpinned.empty() || !deleted_working_refs.empty() || !forgotten_working_refs.empty() ||
         !deleted_listings.empty() || !deleted_stores.empty() || !forgotten_stores.empty() || !forgotten_touched.empty();
}

Json GcReport::to_json() const {
  Json j{{"dry_run", false},
         {"unpinned", unpinned},
         {"kept_pins", kept_pins},
         {"deleted_working_refs", deleted_working_refs},
         {"kept_working_refs", kept_working_refs},
         {"forgotten_working_refs", forgotten_working_refs},
         {"deleted_listings", deleted_listings},
         {"deleted_stores", deleted_stores},
         {"kept_stores", kept_stores},
         {"forgotten_stores", forgotten_stores}, {"forgotten_touched", forgotten_touched}};
  for (const char* k : {"unpinned", "kept_pins", "deleted_working_refs", "kept_working_refs", "forgotten_working_refs",
                        "deleted_stores", "kept_stores"})
    if (j[k].is_null()) j[k] = Json::object();
  if (!failed.empty()) j["failed"] = failed;
  return j;
}

// Planning gc, stage by stage: collect references (this checkout, the other live checkouts,
// every commit), then plan pins, forgotten working refs, working branches and listings. The
// planner holds what the stages share; each stage reads what the earlier ones collected.
struct GcPlanner {
  using GroupEntry = std::pair<const std::string, Group>;
  struct Checkout {
    fs::path dir;
    model::Workspace ws;
    std::map<std::string, model::ObjectManifest> manifests;
  };
  struct Candidate {
    const GroupEntry* group;
    std::string ref, origin;
  };
  struct Verdict {
    std::optional<std::string> blocked, safe, reason;
    Json head;
  };

  Context& cx;
  const GcOptions& opt;
  const GcScope& scope;
  Plan plan;

  std::map<std::string, Group> groups;          // "<kind>|<namespace>"
  std::set<std::string> loose_pins;             // pins of manifests whose store is unknown here: kept everywhere
  std::set<std::string> listing_refs;           // listing file names manifests name
  std::map<std::string, std::string> group_of;  // canonical [kind, locator] -> group ("" = unknown kind)
  std::map<std::string, Json> identity_of;      // canonical [kind, locator] -> identity
  std::set<std::string> unknown_kinds;
  std::set<std::string> named_stores;  // "<kind>\n<canonical identity>" of every store a manifest names
  bool unreadable_manifest = false;    // a manifest that does not parse may name any store
  std::set<std::string> notes_once;
  std::vector<std::string> notes;
  bool have_listings = false;
  std::vector<Checkout> others;               // the other live checkouts
  std::set<std::string> inflight, created_here;  // pin ids unfinished operations name / this clone made
  std::optional<std::set<std::string>> known_pins;  // created_here and the pinned index: read once, when needed

  const std::set<std::string>& pins_made_here() {
    if (!known_pins) {
      known_pins = pin_index(cx).known();
      known_pins->insert(created_here.begin(), created_here.end());
    }
    return *known_pins;
  }
  std::size_t commits = 0;
  GcPayload payload;                                 // the plan's context, written once planned
  std::map<std::string, std::string> unreachable;  // what could not be listed: nothing of it is released

  GcPlanner(Context& r, const GcOptions& o, const GcScope& s) : cx(r), opt(o), scope(s) {}

  Plan run() {
    plan.command = "gc";
    plan.created_at = now_iso_seconds(cx);
    // One walk: the plan reviews exactly the commits its digest names, so a commit made
    // meanwhile changes the digest and is caught when the plan is applied.
    const auto index = HistoryIndex::load(cx, opt.reading);
    std::vector<std::string> history;
    history.reserve(index->commits().size());
    for (const auto& c : index->commits()) history.push_back(c.id);
    const std::string digest = vcs::history_digest_of(std::move(history));
    const auto head = cx.vcs->head();
    have_listings = !model::list_checkout_files(tether_dir(cx) / "listings", ".jsonl", false).empty();

    collect_here();
    collect_live_checkouts();
    collect_history(*index);
    set_context(digest, head);
    if (payload.delete_stores && !opt.listings_only) collect_touched();
    if (!opt.listings_only) {
      plan_pins();
      if (!scope.here_manifests) plan_forgotten_refs();
      if (opt.prune_bookmarks || opt.prune_workspaces || scope.only_bookmark) plan_branches();
    }
    plan_listings();
    if (!opt.listings_only) {
      plan_stores();
      plan_touched();
    }
    payload.unreachable = std::move(unreachable);
    plan.context = payload.to_json();
    plan.notes = std::move(notes);
    return std::move(plan);
  }

  void note(const std::string& n) {
    if (notes_once.insert(n).second) notes.push_back(n);
  }

  static std::string signature(const model::ObjectManifest& m) {
    return support::canonical_json(Json::array({m.kind, m.locator}));
  }

  // ---- references ----

  // `prefer`: a working-tree manifest, whose locator and key the group's actions use.
  void add_manifest(const model::ObjectManifest& m, bool prefer) {
    add_record(m.kind, m.key, signature(m), [&]() -> Json { return m.locator; },
               m.state ? support::canonical_json(*m.state) : std::string(), m.pin ? &m.pin->id : nullptr,
               m.recoverable, prefer);
  }

  // A record of the history index: the same, from its canonical texts (the signature is
  // canonical_json([kind, locator]), the elements joined by ',').
  void add_indexed(const IndexedManifest& r, const std::string& source) {
    const std::string kind(r.kind), pin_id(r.pin_id);
    std::string sig = "[" + support::canonical_json(Json(kind)) + "," + std::string(r.locator) + "]";
    try {
      add_record(kind, std::string(r.key), sig, [&]() -> Json { return Json::parse(r.locator); }, std::string(r.state),
                 r.pin_id.empty() ? nullptr : &pin_id, r.recoverable, false);
    } catch (const Json::exception& e) {  // only an index damaged on disk gives invalid JSON
      if (!pin_id.empty()) loose_pins.insert(pin_id);
      unreadable_manifest = true;
      note(source + " cannot be read from the history index (" + e.what() + "); its pin is kept");
    }
  }

  void add_record(const std::string& kind, const std::string& key, const std::string& sig,
                  const std::function<Json()>& locator, const std::string& state, const std::string* pin_id,
                  bool recoverable, bool prefer) {
    auto g = group_of.find(sig);
    if (g == group_of.end()) {
      std::string name;
      const Json loc = locator();
      try {
        auto& b = cx.backend(kind);
        name = kind + "|" + b.ref_namespace(loc, key);
        identity_of[sig] = b.identity(loc, key);
        named_stores.insert(kind + "\n" + support::canonical_json(identity_of[sig]));
      } catch (const std::exception& e) {
        if (unknown_kinds.insert(kind).second)
          note(kind + ": its backend is not usable here (" + std::string(e.what()) +
               "); its pins are kept and its stores are not collected");
      }
      g = group_of.emplace(sig, name).first;
    }
    if (g->second.empty()) {
      if (pin_id) loose_pins.insert(*pin_id);
      return;
    }
    Group& grp = groups[g->second];
    if (grp.kind.empty() || (prefer && grp.key != key)) {
      grp.kind = kind;
      grp.key = key;
      grp.locator = locator();
    }
    if (state.empty()) return;
    if (pin_id) {
      grp.pins.insert(*pin_id);
      grp.pinned_raw.insert(state);
    } else if (recoverable) {
      grp.recorded_raw.insert(state);
    }
    if (have_listings) {
      const Json content_state = cx.backend(kind).content_state(Json::parse(state));
      listing_refs.insert(model::listing_name(kind, identity_of[sig], content_state));
    }
  }

  // The content states of a group's recorded states (pinned or not), computed on first use.
  const std::unordered_set<std::string>& content_states(const Group& g, bool pinned) {
    auto& out = pinned ? g.pinned_states : g.recorded_states;
    if (!out) {
      out.emplace();
      auto& b = cx.backend(g.kind);
      for (const auto& raw : pinned ? g.pinned_raw : g.recorded_raw) {
        try {
          out->insert(support::canonical_json(b.content_state(Json::parse(raw))));
        } catch (const Json::exception&) {  // a damaged history index: that state is not known
        }
      }
    }
    return *out;
  }

  // A manifest file's text; one that cannot be parsed keeps every pin id it mentions.
  void add_text(const std::string& rel, const std::string& text, const std::string& source, bool prefer) {
    if (rel.size() < 5 || rel.compare(rel.size() - 5, 5, ".toml") != 0) return;
    try {
      add_manifest(model::parse_manifest_file(text, source, rel), prefer);
    } catch (const ConfigError& e) {
      auto ids = pin_ids_in(text);
      loose_pins.insert(ids.begin(), ids.end());
      unreadable_manifest = true;
      note(source + " cannot be read (" + e.what() + "); every pin id it mentions is kept");
    }
  }

  // The pins a checkout's op log names: those of unfinished operations are in flight, those
  // the log says were created were made by this clone.
  void scan_ops(const fs::path& dir) {
    std::vector<OpEntry> entries;
    try {
      entries = read_ops(cx, dir);
    } catch (const std::exception& e) {
      note("cannot read " + (dir / ".tether" / "ops.jsonl").string() + ": " + e.what());
    }
    for (const auto& e : entries)
      for (const auto& p : e.progress) {
        auto ref = p.find("ref");
        if (ref == p.end() || !ref->is_string()) continue;
        auto id = model::pin_id_of_ref(ref->get<std::string>());
        if (!id) continue;
        if (e.incomplete()) inflight.insert(*id);
        if (auto c = p.find("created"); c != p.end() && c->is_boolean() && c->get<bool>()) created_here.insert(*id);
      }
  }

  // 1. This checkout's working tree first: its locators are the ones actions use.
  void collect_here() {
    const auto& here = scope.here_manifests ? *scope.here_manifests : cx.manifests;
    for (const auto& entry : here) add_manifest(entry.second, true);
    scan_ops(cx.root);
  }

  // 2. The other live checkouts of the repository: their manifests, workspaces and op logs.
  void collect_live_checkouts() {
    std::error_code ec;
    const fs::path mine = fs::weakly_canonical(cx.vcs->root(), ec);
    for (const auto& r : cx.vcs->workspace_roots()) {
      ec.clear();
      fs::path c = fs::weakly_canonical(r, ec);
      if (c == mine) continue;
      others.push_back(read_checkout(cx.vcs->rel().empty() ? c : c / cx.vcs->rel()));
      scan_ops(others.back().dir);
    }
  }

  Checkout read_checkout(const fs::path& dir) {
    Checkout co;
    co.dir = dir;
    try {
      if (auto ws = model::read_workspace(model::tether_path(dir, "workspace.toml"))) co.ws = *ws;
    } catch (const std::exception& e) {
      note("cannot read " + (dir / ".tether" / "workspace.toml").string() + ": " + e.what());
    }
    const auto objs = model::tether_path(dir, "objects");
    std::vector<fs::path> files;
    try {
      files = model::list_checkout_files(objs, "", /*recursive=*/true);
    } catch (const std::exception& e) {
      note("cannot read " + objs.full().string() + ": " + e.what());
    }
    for (const auto& f : files) {
      std::optional<std::string> text;
      try {
        text = model::read_checkout_file(objs / f);
      } catch (const std::exception&) {
      }
      if (!text) continue;
      const std::string rel = f.generic_string();
      const std::string shown = (objs / f).full().string();
      add_text(rel, *text, shown, false);
      try {
        auto m = model::parse_manifest_file(*text, shown, rel);
        co.manifests.emplace(m.key, std::move(m));
      } catch (const std::exception&) {
      }
    }
    return co;
  }

  // 3. Every commit of the repository (but those the scope counts as gone), each tree and
  //    each manifest text once.
  void collect_history(const HistoryIndex& index) {
    const std::string objects_rel = vcs_path(cx, ".tether/objects");
    std::vector<char> seen_tree(index.tree_count()), seen_record(index.manifests().size());
    std::unordered_set<const vcs::FileMap*> seen_trees;
    std::unordered_set<const std::string*> seen_texts;  // keep_alive's texts (a blob read once is one object)
    std::vector<std::shared_ptr<const vcs::FileMap>> keep_alive;
    for (const auto& c : index.commits()) {
      if (scope.exclude_commits.count(c.id)) continue;
      ++commits;
      if (c.tree != HistoryIndex::kNotIndexed) {  // union of references: a tree, a record counts once
        if (seen_tree[c.tree]) continue;
        seen_tree[c.tree] = 1;
        for (std::uint32_t n : index.tree(c.tree)) {
          if (seen_record[n]) continue;
          seen_record[n] = 1;
          const auto& r = index.manifests()[n];
          add_indexed(r, c.id.substr(0, 12) + ":.tether/objects/" + std::string(r.key) + ".toml");
        }
        continue;
      }
      // Not in the index (a manifest there does not parse): read as it is, errors noted.
      auto files = cx.vcs->manifests_at(c.id, objects_rel);
      if (!seen_trees.insert(files.get()).second) continue;
      keep_alive.push_back(files);
      for (const auto& [rel, text] : *files) {
        if (!seen_texts.insert(text.id()).second) continue;  // a text names its key: the same text is the same manifest
        add_text(rel, text, c.id.substr(0, 12) + ":.tether/objects/" + rel, false);
      }
    }
  }

  // 4. What the plan reviewed: re-planned and compared when the plan is applied from a file.
  void set_context(const std::string& digest, const std::optional<std::string>& head) {
    const auto& ws = *cx.workspace;
    const std::string manifest_hash = model::manifest_hash(cx.manifests);
    payload.workspace_id = ws.workspace_id;
    payload.prune_bookmarks = opt.prune_bookmarks;
    payload.prune_workspaces = opt.prune_workspaces;
    payload.keep_bookmarks = opt.keep_bookmarks;
    payload.force_prune = opt.force_prune;
    payload.release_foreign = opt.release_foreign;
    payload.listings_only = opt.listings_only;
    payload.delete_stores = opt.delete_stores || !opt.stores.empty();
    payload.stores = opt.stores;
    payload.scope = scope.only_bookmark;
    payload.manifest_hash = manifest_hash;
    payload.vcs_head = head;
    payload.history_digest = digest;
    payload.commits = commits;
    plan.preconditions.push_back({"workspace_id", ws.workspace_id, "", Json::object(),
                                  "the plan belongs to checkout " + ws.short_id() + "; this is {observed}"});
    if (head)
      plan.preconditions.push_back(
          {"vcs_head", *head, "", Json::object(), "the checkout moved since the gc plan was made (now at {observed})"});
    plan.preconditions.push_back({"history_digest", digest, "", Json::object(),
                                  "the repository's history changed since the gc plan was made (commits added or removed)"});
    plan.preconditions.push_back({"manifest_hash", manifest_hash, "", Json::object(),
                                  "the manifests changed since the gc plan was made (now {observed})"});
  }

  // The stores whose backend has capability `cap` for the group's locator.
  std::vector<const GroupEntry*> groups_with(uint32_t cap) {
    std::vector<const GroupEntry*> out;
    for (const auto& entry : groups) {
      const Group& g = entry.second;
      if (g.kind.empty()) continue;
      try {
        if (cx.backend(g.kind).effective_capabilities(g.locator, Json::object(), g.key) & cap) out.push_back(&entry);
      } catch (const std::exception&) {
      }
    }
    return out;
  }

  // ---- 5. pins: this dataset's pins no manifest references, released only if this clone made them ----
  void plan_pins() {
    const std::set<std::string>& known = pins_made_here();
    auto pin_groups = groups_with(sdk::kPin);
    auto listed = fan_out<std::vector<std::string>>(
        pin_groups.size(),
        [&](std::size_t i) {
          const Group& g = pin_groups[i]->second;
          return cx.backend(g.kind).list_pins(g.locator, g.key);
        },
        opt.progress);
    for (std::size_t i = 0; i < pin_groups.size(); ++i) {
      const Group& g = pin_groups[i]->second;
      if (!listed[i].ok()) {
        const std::string why = listed[i].keyed(g.key);
        unreachable[g.key] = "cannot list its pins: " + why;
        note(g.key + ": cannot list its pins, so none of them is released (" + why + ")");
        continue;
      }
      plan_pins_of(g, std::set<std::string>(listed[i].value->begin(), listed[i].value->end()), known);
    }
  }

  void plan_pins_of(const Group& g, const std::set<std::string>& ids, const std::set<std::string>& known) {
    std::size_t foreign_datasets = 0, unfinished = 0;
    for (const auto& id : ids) {
      if (model::pin_dataset(id) != cx.dataset_id) {
        ++foreign_datasets;
        continue;
      }
      if (g.pins.count(id) || loose_pins.count(id)) continue;
      if (inflight.count(id)) {
        ++unfinished;
        continue;
      }
      Json params{{"locator", g.locator}, {"pin_id", id}};
      if (known.count(id) || opt.release_foreign) {
        plan.actions.push_back({PlanOp::Unpin, g.key, g.kind, model::pin_ref(id),
                                std::string("no manifest in history references it") +
                                    (known.count(id) ? "" : "; not created by this clone"),
                                params});
      } else {
        plan.actions.push_back({PlanOp::KeepPin, g.key, g.kind, model::pin_ref(id),
                                "no manifest in history references it; not created by this clone -- another clone's "
                                "commits may name it (fetch them, or --release-foreign)",
                                params});
      }
    }
    if (foreign_datasets)
      note(g.key + ": " + std::to_string(foreign_datasets) + " pin(s) of other datasets left alone");
    if (unfinished)
      note(g.key + ": " + std::to_string(unfinished) + " pin(s) of unfinished operation(s) kept (see `tether ops`)");
  }

  // ---- 6. working refs of objects no longer registered ----
  void plan_forgotten_refs() {
    for (const auto& [k, ref] : cx.workspace->working_refs)
      if (!cx.manifests.count(k))
        plan.actions.push_back({PlanOp::ForgetWorkingRef, k, "", ref,
                                "object removed; branch left in place (gc --prune-bookmarks evaluates it)",
                                Json::object()});
  }

  // ---- 7. working branches of bookmarks (and checkouts) that are gone ----
  void plan_branches() {
    auto candidates = branch_candidates();
    auto verdicts = fan_out<Verdict>(candidates.size(), [&](std::size_t i) { return judge(candidates[i]); });
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i];
      const Group& g = c.group->second;
      if (!verdicts[i].ok()) {
        plan.actions.push_back(
            {PlanOp::KeepBranch, g.key, g.kind, c.ref, c.origin + "; kept: " + verdicts[i].what(), Json::object()});
        continue;
      }
      const Verdict& v = *verdicts[i].value;
      Json params{{"locator", g.locator}, {"head", v.head}};
      if (v.blocked) {
        plan.actions.push_back({PlanOp::KeepBranch, g.key, g.kind, c.ref, c.origin + "; cannot be deleted: " + *v.blocked,
                                Json{{"blocked", *v.blocked}}});
      } else if (v.safe) {
        plan.actions.push_back({PlanOp::DeleteBranch, g.key, g.kind, c.ref, c.origin + "; " + *v.safe, params});
      } else if (opt.force_prune && !v.head.is_null()) {
        params["forced"] = true;
        plan.actions.push_back({PlanOp::DeleteBranch, g.key, g.kind, c.ref, c.origin + "; FORCED although it " + *v.reason, params});
      } else {
        plan.actions.push_back(
            {PlanOp::KeepBranch, g.key, g.kind, c.ref, c.origin + "; kept: " + *v.reason + " (--force-prune deletes)", params});
      }
    }
  }

  // Live bookmarks (by slug), live checkouts (by short id) and the branches they use.
  struct Live {
    std::set<std::string> slugs, ws8;
    std::set<std::string> in_use;  // "<group>\n<ref>" of every working ref and pending fork of a live checkout
    std::string my_slug;
  };
  Live live_branches() {
    Live live;
    std::set<std::string> bookmarks;
    const auto& ws = *cx.workspace;
    for (const auto& [b, c] : cx.vcs->bookmarks()) bookmarks.insert(b);
    if (ws.bookmark && !scope.here_manifests) bookmarks.insert(*ws.bookmark);
    for (const auto& co : others)
      if (co.ws.bookmark) bookmarks.insert(*co.ws.bookmark);
    for (const auto& b : opt.keep_bookmarks) bookmarks.insert(b);
    if (scope.only_bookmark) bookmarks.erase(*scope.only_bookmark);
    for (const auto& b : bookmarks) live.slugs.insert(model::bookmark_slug(b));
    if (!scope.only_bookmark)
      note("keeping live bookmarks: " + join(std::vector<std::string>(bookmarks.begin(), bookmarks.end())));
    live.ws8.insert(ws.short_id());
    for (const auto& co : others)
      if (!co.ws.workspace_id.empty()) live.ws8.insert(co.ws.short_id());

    auto mark_in_use = [&](const std::map<std::string, model::ObjectManifest>& ms, const model::Workspace& w) {
      for (const auto* table : {&w.working_refs, &w.pending_forks})
        for (const auto& [k, ref] : *table) {
          auto m = ms.find(k);
          if (m == ms.end()) continue;
          auto g = group_of.find(signature(m->second));
          if (g != group_of.end() && !g->second.empty()) live.in_use.insert(g->second + "\n" + ref);
        }
    };
    if (!scope.here_manifests) mark_in_use(cx.manifests, ws);
    for (const auto& co : others) mark_in_use(co.manifests, co.ws);
    live.my_slug = ws.bookmark ? model::bookmark_slug(*ws.bookmark) : "";
    return live;
  }

  // The working branches of this dataset no live checkout uses and the options let go, each
  // with why it is a candidate.
  std::vector<Candidate> branch_candidates() {
    const Live live = live_branches();
    auto fork_groups = groups_with(sdk::kFork);
    auto refs = fan_out<std::vector<std::string>>(fork_groups.size(), [&](std::size_t i) {
      const Group& g = fork_groups[i]->second;
      return cx.backend(g.kind).list_working_refs(g.locator, g.key);
    });
    std::vector<Candidate> candidates;
    for (std::size_t i = 0; i < fork_groups.size(); ++i) {
      const GroupEntry* entry = fork_groups[i];
      const Group& g = entry->second;
      if (!refs[i].ok()) {
        const std::string why = refs[i].keyed(g.key);
        unreachable[g.key + " (branches)"] = "cannot list its working branches: " + why;
        note(g.key + ": cannot list its working branches, so none is deleted (" + why + ")");
        continue;
      }
      std::size_t foreign = 0;
      for (const auto& ref : *refs[i].value) {
        auto parts = model::parse_working_ref(ref);
        if (!parts) continue;
        if (parts->dataset_id != cx.dataset_id.substr(0, 8)) {
          ++foreign;
          continue;
        }
        if (live.in_use.count(entry->first + "\n" + ref)) continue;
        if (auto origin = why_candidate(*parts, live)) candidates.push_back({entry, ref, *origin});
      }
      if (foreign) note(g.key + ": " + std::to_string(foreign) + " working branch(es) of other datasets left alone");
    }
    return candidates;
  }

  // Why a working branch of this dataset that no live checkout uses may go, or nothing.
  std::optional<std::string> why_candidate(const model::WorkingRefParts& parts, const Live& live) const {
    if (parts.legacy()) {
      if (!(opt.prune_workspaces || opt.prune_bookmarks) || scope.only_bookmark) return std::nullopt;
      if (live.ws8.count(*parts.workspace)) return std::nullopt;
      return "legacy workspace " + *parts.workspace + " branch";
    }
    if (scope.only_bookmark) {
      if (parts.tail != model::bookmark_slug(*scope.only_bookmark)) return std::nullopt;
      return "bookmark " + parts.tail + " (gone)";
    }
    if (!opt.prune_bookmarks) return std::nullopt;
    if (!live.slugs.count(parts.tail)) return "bookmark " + parts.tail + " (gone)";
    if (parts.tail == live.my_slug) return std::string("this bookmark's branch; no object uses it");
    return std::nullopt;  // another live bookmark's
  }

  // A candidate's verdict: blocked, safe to delete (and why), or holding writes (why not).
  Verdict judge(const Candidate& c) {
    const Group& g = c.group->second;
    auto& b = cx.backend(g.kind);
    Verdict v;
    if (auto blocker = b.working_ref_blockers(g.locator, c.ref, g.key)) {
      v.blocked = *blocker;
      return v;
    }
    if (b.has_capability(sdk::kBranchIsStorage)) {
      v.reason = "branch is storage; deleting reclaims its data";
      try {
        v.head = b.fingerprint(g.locator, c.ref, g.key);
      } catch (const std::exception&) {
      }
      return v;
    }
    try {
      v.head = b.fingerprint(g.locator, c.ref, g.key);
    } catch (const BackendError& e) {
      v.reason = "cannot read head: " + e.bare_message();
      return v;
    } catch (const std::exception& e) {
      v.reason = std::string("cannot read head: ") + e.what();
      return v;
    }
    const std::string content = support::canonical_json(b.content_state(v.head));
    if (content_states(g, true).count(content)) {
      v.safe = "head is pinned";
    } else if (scope.dropped_states.count(c.group->first + "\n" + content)) {
      v.safe = "head was committed by a dropped commit";
    } else {
      Json base_loc = g.locator;
      base_loc.erase("at");
      std::optional<Json> base;
      try {
        base = b.fingerprint(base_loc, std::nullopt, g.key);
      } catch (const std::exception&) {
      }
      if (base && b.same(*base, v.head)) v.safe = "head equals the base branch";
      else if (content_states(g, false).count(content))
        v.reason = "holds a pin-less recorded state (" + model::short_state(v.head) + ")";
      else v.reason = "has unpinned writes (" + model::short_state(v.head) + ")";
    }
    return v;
  }

  // ---- 8. listings no manifest names ----
  void plan_listings() {
    if (!have_listings) return;
    if (!unknown_kinds.empty()) {
      note("listings are kept: objects of an unusable backend may name them");
      return;
    }
    for (const auto& f : model::list_checkout_files(tether_dir(cx) / "listings", ".jsonl", false))
      if (!listing_refs.count(f.string()))
        plan.actions.push_back({PlanOp::DeleteListing, "", "", f.string(), "unreferenced", Json::object()});
  }

  // ---- 9. stores `add --create` made that nothing references (experimental, --delete-stores) ----
  struct StoreCandidate {
    std::string kind, key, bookmark, where;
    Json locator, identity;
    bool named_by_option = false;  // --store: not in the created-stores index
  };

  static std::string where_of(const Json& locator) {
    for (const char* k : {"uri", "path"})
      if (auto it = locator.find(k); it != locator.end() && it->is_string()) return it->get<std::string>();
    return support::canonical_json(locator);
  }

  std::vector<StoreCandidate> store_candidates() {
    std::vector<StoreCandidate> out;
    std::set<std::string> seen;
    for (auto& c : created_index(cx).stores()) {
      if (c.dataset_id != cx.dataset_id || !seen.insert(c.store_id()).second) continue;
      out.push_back({c.kind, c.key, c.bookmark, where_of(c.locator), c.locator, c.identity, false});
    }
    for (const auto& [kind, loc] : opt.stores) {
      StoreCandidate sc{kind, "", "", where_of(loc), loc, Json(nullptr), true};
      try {
        auto& b = cx.backend(kind);
        sc.identity = b.identity(loc, "");
        sc.key = b.default_key(loc, sc.where).value_or(sc.where);
      } catch (const std::exception& e) {
        note(sc.where + ": not a " + kind + " store tether can ask (" + e.what() + "); not deleted");
        continue;
      }
      if (seen.insert(kind + "\n" + support::canonical_json(sc.identity)).second) out.push_back(std::move(sc));
    }
    return out;
  }

  void plan_stores() {
    if (!payload.delete_stores) return;
    if (unreadable_manifest) {
      note("no store is deleted: a manifest that cannot be read may name one");
      return;
    }
    std::vector<PlanAction> deletes;  // every delete-store runs last
    std::size_t in_use = 0;
    for (auto& sc : store_candidates()) {
      const std::string label = sc.key.empty() ? sc.where : sc.key;
      auto keep = [&](const std::string& why) {
        plan.actions.push_back({PlanOp::KeepStore, sc.key, sc.kind, sc.where, why, Json{{"locator", sc.locator}}});
      };
      host::BackendProxy* bp = nullptr;
      try {
        bp = &cx.backend(sc.kind);
      } catch (const std::exception& e) {
        keep(std::string("its backend is not usable here (") + e.what() + ")");
        continue;
      }
      auto& b = *bp;
      // Named by a manifest (by the identity recorded, or by the one its locator has now): in use.
      std::optional<Json> now_identity;
      try {
        now_identity = b.identity(sc.locator, sc.key);
      } catch (const std::exception&) {
      }
      if (named_stores.count(sc.kind + "\n" + support::canonical_json(sc.identity)) ||
          (now_identity && named_stores.count(sc.kind + "\n" + support::canonical_json(*now_identity)))) {
        if (sc.named_by_option) note(sc.where + ": a manifest names it; not deleted");
        else ++in_use;
        continue;
      }
      if (!(b.capabilities() & sdk::kCreate)) {
        keep("the " + sc.kind + " backend cannot delete stores");
        continue;
      }
      std::optional<std::string> owner;
      try {
        owner = b.owner(sc.locator, sc.key);
      } catch (const std::exception& e) {
        keep(std::string("cannot read its owner marker (") + e.what() + ")");
        unreachable[label + " (store)"] = std::string("cannot read its owner marker: ") + e.what();
        continue;
      }
      const Json forget_params{{"locator", sc.locator}, {"identity", sc.identity}};
      if (!owner) {
        if (sc.named_by_option) note(sc.where + ": no owner marker of tether's is in it; not deleted");
        else
          plan.actions.push_back({PlanOp::ForgetStore, sc.key, sc.kind, sc.where,
                                  "no owner marker: the store is gone, or is no longer tether's", forget_params});
        continue;
      }
      if (*owner != cx.dataset_id) {
        note(label + ": its owner marker names dataset " + *owner + "; left alone");
        continue;
      }
      plan_store(sc, b, deletes);
    }
    for (auto& a : deletes) plan.actions.push_back(std::move(a));
    if (in_use) note(std::to_string(in_use) + " created store(s) still named by a manifest (in history or a checkout) are kept");
  }

  // ---- 10. stores this clone wrote refs into that no manifest names (--delete-stores) ----
  // Each joins the planning as a store nothing references, so its dead pins and branches go
  // under the usual rules (pins this clone made; branches of gone bookmarks with
  // --prune-bookmarks); once nothing of this dataset is left in it, its record goes too.
  struct TouchedStore {
    std::string group;
    StoreRecord rec;
  };
  std::vector<TouchedStore> touched;

  void collect_touched() {
    if (unreadable_manifest) return;  // plan_stores says why nothing is collected
    std::set<std::string> created;
    for (const auto& c : created_index(cx).stores())
      if (c.dataset_id == cx.dataset_id) created.insert(c.store_id());
    for (auto& t : touched_index(cx).stores()) {
      if (t.dataset_id != cx.dataset_id || created.count(t.store_id()) || named_stores.count(t.store_id())) continue;
      try {
        auto& b = cx.backend(t.kind);
        if (named_stores.count(t.kind + "\n" + support::canonical_json(b.identity(t.locator, t.key)))) continue;
        std::string name = t.kind + "|" + b.ref_namespace(t.locator, t.key);
        Group& g = groups[name];
        if (g.kind.empty()) {
          g.kind = t.kind;
          g.key = t.key;
          g.locator = t.locator;
        }
        touched.push_back({std::move(name), std::move(t)});
      } catch (const std::exception& e) {
        note(t.key + ": a store this clone wrote refs into cannot be asked here (" + e.what() + "); its refs are kept");
      }
    }
  }

  void plan_touched() {
    for (const auto& t : touched) {
      const Group& g = groups.at(t.group);
      const std::string where = where_of(t.rec.locator);
      auto& b = cx.backend(t.rec.kind);
      // This dataset's refs in it that this plan does not release.
      std::set<std::string> going;
      const std::string loc = support::canonical_json(g.locator);
      for (const auto& a : plan.actions)
        if ((a.op == PlanOp::Unpin || a.op == PlanOp::DeleteBranch) && a.kind == g.kind &&
            support::canonical_json(a.params.value("locator", Json())) == loc)
          going.insert(a.target);
      std::vector<std::string> left;
      try {
        const uint32_t caps = b.effective_capabilities(g.locator, Json::object(), g.key);
        if (caps & sdk::kPin)
          for (const auto& id : b.list_pins(g.locator, g.key))
            if (model::pin_dataset(id) == cx.dataset_id && !going.count(model::pin_ref(id))) left.push_back(model::pin_ref(id));
        if (caps & sdk::kFork)
          for (const auto& ref : b.list_working_refs(g.locator, g.key))
            if (auto parts = model::parse_working_ref(ref);
                parts && parts->dataset_id == cx.dataset_id.substr(0, 8) && !going.count(ref))
              left.push_back(ref);
      } catch (const std::exception& e) {
        note(t.rec.key + " (" + where + "): cannot list its refs (" + e.what() + "); it stays in the touched-store index");
        continue;
      }
      if (!left.empty()) {
        note(t.rec.key + " (" + where + "): no manifest names it, but it keeps " + join(left) +
             "; it stays in the touched-store index");
        continue;
      }
      plan.actions.push_back({PlanOp::ForgetTouched, t.rec.key, t.rec.kind, where,
                              "no manifest names it and nothing of this dataset's is left in it",
                              Json{{"locator", t.rec.locator}, {"identity", t.rec.identity}}});
    }
  }

  // One store of this dataset that nothing names: everything of tether's in it released by
  // this plan, and then the store, when the backend confirms nothing else is in it.
  void plan_store(const StoreCandidate& sc, host::BackendProxy& b, std::vector<PlanAction>& deletes) {
    auto keep = [&](const std::string& why) {
      plan.actions.push_back({PlanOp::KeepStore, sc.key, sc.kind, sc.where, why, Json{{"locator", sc.locator}}});
    };
    const uint32_t caps = b.capabilities();
    std::vector<std::string> pins, branches;
    try {
      if (caps & sdk::kPin)
        for (auto& id : b.list_pins(sc.locator, sc.key))
          if (model::pin_dataset(id) == cx.dataset_id) pins.push_back(std::move(id));
      if (caps & sdk::kFork)
        for (auto& ref : b.list_working_refs(sc.locator, sc.key))
          if (auto parts = model::parse_working_ref(ref); parts && parts->dataset_id == cx.dataset_id.substr(0, 8))
            branches.push_back(std::move(ref));
    } catch (const std::exception& e) {
      keep(std::string("cannot list its refs (") + e.what() + ")");
      return;
    }
    // What stops the deletion: a hard stop, or what --force-prune overrides.
    std::vector<std::string> hard, soft;
    const std::set<std::string>& known = pins_made_here();
    std::size_t unfinished = 0, foreign = 0;
    for (const auto& id : pins) {
      if (inflight.count(id)) ++unfinished;
      else if (!known.count(id) && !opt.release_foreign) ++foreign;
    }
    if (unfinished) hard.push_back(std::to_string(unfinished) + " pin(s) of unfinished operation(s) (see `tether ops`)");
    if (foreign) soft.push_back(std::to_string(foreign) + " pin(s) this clone did not make (--release-foreign releases them)");
    if (!branches.empty()) {
      const Live live = live_branches();
      const std::string created_slug = sc.bookmark.empty() ? std::string() : model::bookmark_slug(sc.bookmark);
      std::vector<std::string> unaccounted;
      for (const auto& ref : branches) {
        auto parts = model::parse_working_ref(ref);
        const bool accounted =
            parts && !parts->legacy() && (parts->tail == created_slug || live.slugs.count(parts->tail) ||
                                          (scope.only_bookmark && parts->tail == model::bookmark_slug(*scope.only_bookmark)));
        if (!accounted) unaccounted.push_back(ref);
      }
      if (!unaccounted.empty())
        soft.push_back("holds branch(es) no bookmark here accounts for: " + join(unaccounted));
      if (!opt.prune_bookmarks && !scope.only_bookmark)
        soft.push_back("holds working branch(es) " + join(branches) + " (--prune-bookmarks releases them)");
    }
    if (!hard.empty() || (!soft.empty() && !opt.force_prune)) {
      std::vector<std::string> why = hard;
      why.insert(why.end(), soft.begin(), soft.end());
      keep("kept: " + join(why, "; ") + (hard.empty() ? " (--force-prune deletes)" : ""));
      return;
    }
    std::vector<std::string> ignoring;
    for (const auto& id : pins) ignoring.push_back(model::pin_ref(id));
    ignoring.insert(ignoring.end(), branches.begin(), branches.end());
    std::optional<bool> empty;
    try {
      empty = b.is_ref_empty(sc.locator, ignoring, sc.key);
    } catch (const std::exception& e) {
      keep(std::string("cannot tell whether anything else is in it (") + e.what() + ")");
      return;
    }
    if (!empty) {
      keep("the " + sc.kind + " backend cannot tell whether anything else is in it");
      return;
    }
    if (!*empty) {
      keep("holds more than its initial state and tether's refs (data written, or refs tether did not make)");
      return;
    }
    // The branches' heads, so the preflight sees a branch that moves meanwhile.
    std::vector<PlanAction> contents;
    for (const auto& ref : branches) {
      try {
        contents.push_back({PlanOp::DeleteBranch, sc.key, sc.kind, ref, "in store " + sc.where + ", which is deleted",
                            Json{{"locator", sc.locator}, {"head", b.fingerprint(sc.locator, ref, sc.key)}}});
      } catch (const std::exception& e) {
        keep("cannot read its branch " + ref + " (" + e.what() + ")");
        return;
      }
    }
    for (const auto& id : pins)
      contents.push_back({PlanOp::Unpin, sc.key, sc.kind, model::pin_ref(id), "in store " + sc.where + ", which is deleted",
                          Json{{"locator", sc.locator}, {"pin_id", id}}});
    for (auto& a : contents) plan.actions.push_back(std::move(a));
    std::string detail = sc.named_by_option ? std::string("named by --store") : "made by `add --create`";
    if (!sc.bookmark.empty()) detail += " on " + sc.bookmark;
    detail += "; no manifest names it and nothing else is in it";
    deletes.push_back({PlanOp::DeleteStore, sc.key, sc.kind, sc.where, detail,
                       Json{{"locator", sc.locator}, {"identity", sc.identity}}});
  }
};

Plan plan_gc(Context& cx, const GcOptions& opt, const GcScope& scope) { return GcPlanner(cx, opt, scope).run(); }

std::map<std::string, std::string> plan_unreachable(const Plan& plan) {
  // A gc plan's, or one of drop's, which carries its gc's; a plan that lists none has none.
  return unreachable_of(ContextReader{plan.context, plan.command.empty() ? "gc" : plan.command.c_str()});
}

namespace {

// A store action's store, as the created-stores index names it.
std::string store_id(const PlanAction& a) {
  return a.kind + "\n" + support::canonical_json(a.params.value("identity", Json(nullptr)));
}

// A store's name in the report: its key, or also where it is when two share a key.
std::string store_name(const std::map<std::string, std::string>& m, const PlanAction& a) {
  const std::string k = a.key.empty() ? a.target : a.key;
  return m.count(k) ? k + " (" + a.target + ")" : k;
}

// delete-store: the owner marker and emptiness asked again right before the irreversible
// step, with nothing ignored (the plan's pins and branches are gone by now, and anything
// written meanwhile keeps the store). False: kept, and reported as failed.
bool delete_store(Context& cx, const PlanAction& a, GcReport& rep) {
  auto& b = cx.backend(a.kind);
  const Json& loc = a.params["locator"];
  const auto owner = b.owner(loc, a.key);
  std::optional<std::string> why;
  if (owner != cx.dataset_id) why = "its owner marker " + (owner ? "names dataset " + *owner : std::string("is gone"));
  else if (b.is_ref_empty(loc, {}, a.key) != true) why = "it is not empty any more";
  if (why) {
    rep.kept_stores[store_name(rep.kept_stores, a)] = *why;
    rep.failed[(a.key.empty() ? a.target : a.key) + ": delete-store " + a.target] =
        *why + " (checked again before deleting); kept";
    return false;
  }
  b.delete_store(loc, a.key);
  rep.deleted_stores[store_name(rep.deleted_stores, a)] = a.target;
  return true;
}

}  // namespace

// Before anything is applied: a branch that moved since the plan was reviewed is not what the
// plan judged, and a pin outside this dataset is no gc's.
static void preflight_gc(Context& cx, const Plan& plan) {
  for (const auto& a : plan.actions) {
    if (a.op == PlanOp::Unpin && model::pin_dataset(a.params.value("pin_id", std::string())) != cx.dataset_id)
      throw StalePlanError("the gc plan releases " + a.target + ", which is not a pin of this dataset; re-run the plan");
    if (a.op != PlanOp::DeleteBranch) continue;
    auto& b = cx.backend(a.kind);
    std::optional<Json> head;
    try {
      head = b.fingerprint(a.params["locator"], a.target, a.key);
    } catch (const std::exception&) {
    }
    if (!head || a.params["head"].is_null() || !b.same(*head, a.params["head"]))
      throw StalePlanError("[" + a.key + "] " + a.target + " moved since the gc plan was made (" +
                           (head ? model::short_state(*head) : std::string("gone")) + "); re-run the plan");
  }
}

GcReport apply_gc(Context& cx, const Plan& plan, const std::optional<std::string>& parent) {
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  GcReport rep;
  rep.plan = plan;
  const GcPayload ctx = GcPayload::from(plan);
  rep.unreachable = ctx.unreachable;
  rep.failed = rep.unreachable;

  preflight_gc(cx, plan);

  OpLog oplog = op_log(cx);
  std::optional<std::string> op_id;
  if (plan.writes() > 0) op_id = oplog.begin("gc", Json{{"workspace", model::workspace_to_toml(*cx.workspace)}}, parent);
  auto progress = [&](const Json& rec) {
    if (op_id) oplog.progress(*op_id, rec);
  };
  // Pins this clone created, so that a pin gc releases leaves the index too; likewise stores.
  std::set<std::string> released, stores_gone, touched_gone;
  std::set<std::string> failed_stores;  // canonical locators an action failed in: their touched records stay
  for (const auto& a : plan.actions) {
    try {
      if (a.op == PlanOp::Unpin) {
        std::string id = a.params["pin_id"].get<std::string>();
        sdk::Pin pin{id, model::pin_ref(id), false};
        cx.backend(a.kind).unpin(a.params["locator"], pin, a.key);
        add_to(rep.unpinned, a.kind, id);
        released.insert(id);
        progress(Json{{"action", "unpin"}, {"key", a.key}, {"pin_id", id}});
      } else if (a.op == PlanOp::KeepPin) {
        add_to(rep.kept_pins, a.kind, a.params["pin_id"].get<std::string>());
      } else if (a.op == PlanOp::ForgetWorkingRef) {
        auto it = cx.workspace->working_refs.find(a.key);
        if (it != cx.workspace->working_refs.end() && it->second == a.target) {
          cx.workspace->working_refs.erase(it);
          cx.workspace->fork_points.erase(a.key);
          cx.workspace->base_states.erase(a.key);
          add_to(rep.forgotten_working_refs, a.key, a.target);
          progress(Json{{"action", "forget-working-ref"}, {"key", a.key}, {"ref", a.target}});
        }
      } else if (a.op == PlanOp::DeleteBranch) {
        auto& b = cx.backend(a.kind);
        Json head = b.fingerprint(a.params["locator"], a.target, a.key);
        if (!b.same(head, a.params["head"])) {
          failed_stores.insert(support::canonical_json(a.params["locator"]));
          add_to(rep.kept_working_refs, a.key, a.target);
          rep.failed[a.key + ": " + a.target] = "moved to " + model::short_state(head) + " while gc ran; kept";
          continue;
        }
        b.delete_working_ref(a.params["locator"], a.target, a.key);
        add_to(rep.deleted_working_refs, a.key, a.target);
        // What undo needs to put the branch back where it was.
        progress(Json{{"action", "delete-branch"}, {"key", a.key}, {"kind", a.kind}, {"ref", a.target},
                      {"locator", a.params["locator"]}, {"head", head}});
      } else if (a.op == PlanOp::KeepBranch) {
        add_to(rep.kept_working_refs, a.key, a.target);
      } else if (a.op == PlanOp::DeleteListing) {
        model::remove_checkout_file(tether_dir(cx) / "listings" / a.target);
        rep.deleted_listings.push_back(a.target);
        progress(Json{{"action", "delete-listing"}, {"target", a.target}});
      } else if (a.op == PlanOp::DeleteStore) {
        if (!delete_store(cx, a, rep)) continue;
        stores_gone.insert(store_id(a));
        progress(Json{{"action", "delete-store"}, {"key", a.key}, {"kind", a.kind}, {"where", a.target},
                      {"locator", a.params["locator"]}});
      } else if (a.op == PlanOp::KeepStore) {
        rep.kept_stores[store_name(rep.kept_stores, a)] = a.detail;
      } else if (a.op == PlanOp::ForgetStore) {
        stores_gone.insert(store_id(a));
        rep.forgotten_stores.push_back(a.key.empty() ? a.target : a.key);
        progress(Json{{"action", "forget-store"}, {"key", a.key}, {"kind", a.kind}, {"where", a.target}});
      } else if (a.op == PlanOp::ForgetTouched) {
        if (failed_stores.count(support::canonical_json(a.params["locator"]))) continue;
        touched_gone.insert(store_id(a));
        rep.forgotten_touched.push_back(a.key.empty() ? a.target : a.key);
        progress(Json{{"action", "forget-touched"}, {"key", a.key}, {"kind", a.kind}, {"where", a.target}});
      }
    } catch (const std::exception& e) {
      if (auto loc = a.params.find("locator"); loc != a.params.end()) failed_stores.insert(support::canonical_json(*loc));
      const std::string op(op_name(a.op));
      std::string what = a.key.empty() ? op + " " + a.target : a.key + ": " + op + " " + a.target;
      rep.failed[what] = e.what();
    }
  }
  model::remove_empty_checkout_dirs(tether_dir(cx) / "listings", tether_dir(cx).rel);  // only when now empty
  try {
    pin_index(cx).release(released);
  } catch (const std::exception& e) {
    rep.failed["pinned index"] = e.what();
  }
  try {
    created_index(cx).forget(cx.dataset_id, stores_gone);
  } catch (const std::exception& e) {
    rep.failed["created-stores index"] = e.what();
  }
  try {
    touched_index(cx).forget(cx.dataset_id, touched_gone);
  } catch (const std::exception& e) {
    rep.failed["touched-store index"] = e.what();
  }
  if (!rep.forgotten_working_refs.empty()) write_workspace(cx);
  if (op_id) {
    Json result = rep.to_json();
    result.erase("dry_run");
    oplog.end(*op_id, result);
  }
  rep.applied = true;
  return rep;
}

GcReport gc(Repo& repo, const GcOptions& given) {
  Context& cx = Context::of(repo);
  GcOptions opt = given;
  // --store KIND=LOCATOR: a local path means the same store from every directory.
  for (auto& [kind, loc] : opt.stores) loc = stored_locator(cx.backend(kind), "", loc, opt.cwd);
  if (opt.force_prune && !opt.prune_bookmarks && !opt.prune_workspaces)
    throw ConfigError("--force-prune requires --prune-bookmarks (or --prune-workspaces)");
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  // A saved plan is planned again from the options it records and must come out the same: its
  // locators, pins and branches are then what this checkout's history names, not the file's.
  auto rederive = [&](const Plan& p) {
    const GcPayload ctx = GcPayload::from(p);
    check_preconditions(cx, p);
    GcOptions again;
    again.prune_bookmarks = ctx.prune_bookmarks;
    again.prune_workspaces = ctx.prune_workspaces;
    again.force_prune = ctx.force_prune;
    again.release_foreign = ctx.release_foreign;
    again.listings_only = ctx.listings_only;
    again.keep_bookmarks = ctx.keep_bookmarks;
    again.delete_stores = ctx.delete_stores;
    again.stores = ctx.stores;
    if (ctx.scope) throw StalePlanError("the saved gc plan was made by abandon or drop; re-run the plan");
    require_rederived(p, plan_gc(cx, again, GcScope{}));
  };
  GcReport rep = run_planned<GcReport>(
      opt.saved, opt.dry_run, rederive,
      [&] { return plan_gc(cx, opt, GcScope{}); }, [&](const Plan& p) { return apply_gc(cx, p, std::nullopt); });
  rep.unreachable = plan_unreachable(rep.plan);
  return rep;
}

// What `tether ops` says of a gc (ops.cpp's table).
std::string summarize_gc(const OpEntry& e) {
  const Json& r = e.result;
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

// ---- undoing a gc (undo.cpp runs it; engine/undoer.hpp) ----

// Released pins and deleted branches cannot come back from here (repair recreates what a
// manifest still names); deleted listings come back from the VCS; forgotten working refs
// come back with the workspace.
static std::size_t gc_pins(const Undoer& u) {
  std::size_t pins = 0;
  if (auto it = u.target.result.find("unpinned"); it != u.target.result.end() && it->is_object())
    for (const auto& [kind, ids] : it->items()) pins += ids.size();
  return pins;
}
static std::string pins_deleted() {
  return "deleted; if a manifest references them again, `tether repair` recreates them while the state is still "
         "reachable";
}
// The listings a gc deleted: plain file names (anything else in the log is not one).
static std::vector<std::string> listing_names(const Json& result) {
  std::vector<std::string> out;
  for (auto& n : strings_of(result, "deleted_listings"))
    if (!n.empty() && n != "." && n != ".." && n.find('/') == std::string::npos && n.find('\0') == std::string::npos)
      out.push_back(std::move(n));
  return out;
}
// The stores a gc deleted, as the op log's progress names them (key and where).
static std::vector<std::string> deleted_stores(const Undoer& u) {
  std::vector<std::string> out;
  for (const auto& p : u.target.progress)
    if (str_of(p, "action") == "delete-store") out.push_back("store " + str_of(p, "where") + " (" + str_of(p, "key") + ")");
  return out;
}
static std::string store_gone() { return "deleted with everything in it; nothing brings it back (`add --create` makes a new, empty one)"; }
static std::string recreate_hint() { return "`tether repair` recreates a bookmark's branches from its manifests"; }
void undo_gc(Undoer& u) {
  const Json& r = u.target.result;
  // Deleted branches come back at the head they had, while the store still holds that state.
  for (const auto& p : u.target.progress) {
    if (str_of(p, "action") != "delete-branch") continue;
    std::string key = str_of(p, "key"), ref = str_of(p, "ref"), kind = str_of(p, "kind");
    const Json head = p.value("head", Json(nullptr));
    const std::string at = head.is_null() ? std::string("?") : model::short_state(head);
    try {
      if (kind.empty() || head.is_null() || !p.contains("locator"))
        throw TetherError("the op log does not say where it was");
      std::string made = u.cx.backend(kind).fork(p["locator"], sdk::Source::of_state(head), ref,
                                                 sdk::Expected::absent(), key);
      u.restored.push_back(key + ": " + made + " recreated at " + at);
    } catch (const std::exception& e) {
      u.irreversible.push_back(key + ": " + ref + " could not be recreated at " + at + " (" + e.what() + "); " +
                             recreate_hint());
    }
  }
  if (std::size_t pins = gc_pins(u)) u.irreversible.push_back(std::to_string(pins) + " pin(s) " + pins_deleted());
  for (const auto& w : deleted_stores(u)) u.irreversible.push_back(w + ": " + store_gone());
  for (const auto& n : listing_names(r)) {
    auto text = u.cx.vcs->read_file("HEAD", vcs_path(u.cx, ".tether/listings/" + n));
    if (!text) {
      u.irreversible.push_back("listing " + n + ": not in the VCS either");
      continue;
    }
    model::write_checkout_file(tether_dir(u.cx) / "listings" / n, *text);
    u.restored.push_back("listing " + n + ": restored from the VCS");
  }
  u.restore_workspace();
  if (u.restored.empty() && u.irreversible.empty()) u.skipped.push_back("gc released nothing");
}
void plan_undo_gc(Undoer& u) {
  const Json& r = u.target.result;
  for (const auto& p : u.target.progress) {
    if (str_of(p, "action") != "delete-branch") continue;
    std::string key = str_of(p, "key"), ref = str_of(p, "ref"), kind = str_of(p, "kind");
    const Json head = p.value("head", Json(nullptr));
    if (kind.empty() || head.is_null() || !p.contains("locator"))
      u.act(PlanOp::Irreversible, key, "", ref, "cannot be recreated: the op log does not say where it was; " + recreate_hint());
    else u.act(PlanOp::RecreateBranch, key, kind, ref, "at " + model::short_state(head), Json{{"head", head}});
  }
  if (std::size_t pins = gc_pins(u)) u.act(PlanOp::Irreversible, "", "", std::to_string(pins) + " pin(s)", pins_deleted());
  for (const auto& w : deleted_stores(u)) u.act(PlanOp::Irreversible, "", "", w, store_gone());
  for (const auto& n : listing_names(r)) {
    if (u.cx.vcs->read_file("HEAD", vcs_path(u.cx, ".tether/listings/" + n))) u.act(PlanOp::RestoreListing, "", "", n, "from the VCS");
    else u.act(PlanOp::Irreversible, "", "", "listing " + n, "not in the VCS either");
  }
  u.plan_workspace();
  if (u.plan->actions.empty()) u.note("gc released nothing");
}

}  // namespace tether::engine
