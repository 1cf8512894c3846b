// core/src/engine/upgrade.cpp: `tether upgrade` (docs/cli.md#upgrade): bring a dataset of an
// older format to version 5.
//
// Each step runs only on what the dataset shows. Before version 2, pins and working branches
// had no dataset namespace: the dataset gets an id, every pin any commit names is renamed in
// its store (`rename_pin`) to the id its kind, identity and state give under that namespace,
// this checkout's working branches are renamed (`rename_working_ref`), and every commit's
// manifests are rewritten to name the new pins (VcsAdapter::rewrite_history). Manifests lose
// the legacy `write` policy; before version 4, relative local paths become absolute (from the
// dataset root, as those versions read them). tether.toml is written at version 5 (adopting
// the trunk bookmark when it names none), .tether/.gitignore in full, and the result
// committed. Store renames come first: one that fails stops the upgrade before history or
// manifests change.
#include <sys/stat.h>

#include <set>
#include <sstream>

#include "engine/internal.hpp"
#include "engine/undoer.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/upgrade.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/config.hpp"
#include "tether/model/gitignore.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/keys.hpp"
#include "tether/model/manifest.hpp"
#include "tether/model/checkout.hpp"
#include "tether/model/names.hpp"
#include "tether/model/toml.hpp"
#include "tether/model/workspace.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

namespace fs = std::filesystem;

namespace {

struct Migration {
  int to;
  const char* title;
};
constexpr Migration kMigrations[] = {
    {2, "pins and branches in the dataset's namespace"},
    {3, "no write policy, a trunk bookmark"},
    {4, "absolute local paths"},
    {5, "0.1.0b3 identities and states"},
};

// What an upgrade plan decided (its context).
struct UpgradePayload {
  int from = 5;
  std::string dataset_id;
  bool id_given = false;
  std::optional<std::string> trunk;
  bool ignore_immutable = false;

  Json to_json() const {
    return Json{{"from", from},           {"to", model::kConfigVersion},
                {"dataset_id", dataset_id}, {"id_given", id_given},
                {"trunk", trunk ? Json(*trunk) : Json(nullptr)}, {"ignore_immutable", ignore_immutable}};
  }
  static UpgradePayload from_plan(const Plan& plan) {
    const ContextReader r{plan.context, "upgrade"};
    UpgradePayload p;
    const Json& from = r.at("from");
    if (!from.is_number_integer() || from.get<int64_t>() < 1 || from.get<int64_t>() > model::kConfigVersion)
      r.refuse("from", "is not a format version");
    p.from = static_cast<int>(from.get<int64_t>());
    p.dataset_id = r.string("dataset_id");
    if (!model::is_dataset_id(p.dataset_id)) r.refuse("dataset_id", "is not a dataset id");
    p.id_given = r.boolean("id_given");
    p.trunk = r.string_or_null("trunk");
    p.ignore_immutable = r.boolean("ignore_immutable");
    return p;
  }
};

bool legacy_pin(const sdk::Pin& p) { return !model::pin_dataset(p.id); }

// The identity this version gives a store index record's locator, when it differs from the
// one recorded.
std::optional<Json> index_identity(Context& cx, const StoreRecord& r) {
  try {
    Json id = cx.backend(r.kind).identity(r.locator, r.key);
    if (id != r.identity) return id;
  } catch (const std::exception&) {  // a kind not installed here, a locator it refuses: left as it is
  }
  return std::nullopt;
}

struct UpgradePlanner {
  Context& cx;
  const UpgradeOptions& opt;
  Plan plan;
  UpgradePayload payload;
  std::map<std::string, std::string> new_pin_of;  // legacy pin id -> its id in the namespace

  Plan run(const std::optional<std::string>& planned_id) {
    plan.command = "upgrade";
    plan.created_at = now_iso_seconds(cx);
    payload.from = cx.config.version;
    payload.ignore_immutable = opt.ignore_immutable;
    payload.dataset_id = cx.dataset_id;
    if (payload.dataset_id.empty()) {
      payload.dataset_id = planned_id.value_or(model::new_dataset_id());
      payload.id_given = true;
    }
    if (payload.from < model::kConfigVersion) {
      if (!cx.config.vcs_trunk) payload.trunk = cx.vcs->current_bookmark().value_or("main");
      if (payload.from < 2) {
        plan_pins();
        plan_branches();
      }
      if (payload.from < 4) plan_layout();
      plan_manifests();
      plan_indexes();
    }
    plan.context = payload.to_json();
    plan.preconditions.push_back({"config_version", payload.from, "", Json::object(),
                                  "plan was made for version " + std::to_string(payload.from) +
                                      ", the dataset is at {observed}; re-run the plan"});
    plan.preconditions.push_back({"manifest_hash", model::manifest_hash(cx.manifests), "", Json::object(),
                                  "the manifests changed since the upgrade plan was made (now {observed})"});
    return std::move(plan);
  }

  // Every pin without a namespace that the working tree or any commit names, renamed once.
  void plan_pins() {
    auto consider = [&](const model::ObjectManifest& m) {
      if (!m.pin || !legacy_pin(*m.pin) || !m.state || new_pin_of.count(m.pin->id)) return;
      auto& b = cx.backend(m.kind);
      b.validate_locator(m.locator, m.key);  // a commit's locator is the clone's: checked as add checks one
      const std::string id = model::pin_id(payload.dataset_id, m.kind, b.identity(m.locator, m.key), b.content_state(*m.state));
      new_pin_of[m.pin->id] = id;
      plan.actions.push_back({PlanOp::RenamePin, m.key, m.kind, m.pin->ref, "-> " + model::pin_ref(id),
                              Json{{"locator", m.locator}, {"pin", Json{{"id", m.pin->id}, {"ref", m.pin->ref}}},
                                   {"state", *m.state}, {"new_id", id}}});
    };
    for (const auto& [k, m] : cx.manifests) consider(m);
    const std::string objects = vcs_path(cx, ".tether/objects");
    bool in_history = false;
    std::set<std::string> seen;  // a text names its key: the same text is the same manifest
    for (const auto& c : cx.vcs->all_commit_ids())
      for (const auto& [rel, text] : *cx.vcs->manifests_at(c, objects)) {
        if (rel.size() < 5 || rel.compare(rel.size() - 5, 5, ".toml") != 0 || !seen.insert(text.str()).second) continue;
        try {
          auto m = model::parse_manifest_file(text, c.substr(0, 12) + ":" + rel, rel);
          if (m.pin && legacy_pin(*m.pin)) in_history = true;
          consider(m);
        } catch (const ConfigError& e) {
          throw ConfigError(std::string(e.what()) + "; the upgrade cannot tell which pins it names");
        }
      }
    if (in_history)
      plan.actions.push_back({PlanOp::RewriteHistory, "", "", "history",
                              "every commit's manifests name the renamed pins (other clones must fetch again)",
                              Json::object()});
  }

  // This checkout's working branches outside the namespace, renamed to the bookmark's name.
  void plan_branches() {
    const auto& ws = *cx.workspace;
    const std::string bookmark = ws.bookmark.value_or(cx.config.trunk());
    const std::string fresh = model::working_ref_name(payload.dataset_id, bookmark);
    std::set<std::string> seen;
    for (const auto& [key, ref] : ws.working_refs) {
      auto m = cx.manifests.find(key);
      if (m == cx.manifests.end() || ref.rfind("tether.ws.", 0) != 0 || ref == fresh) continue;
      if (auto parts = model::parse_working_ref(ref); parts && parts->dataset_id == payload.dataset_id) continue;
      const std::string store = m->second.kind + "\n" + cx.backend(m->second.kind).branch_scope(m->second.locator, key) + "\n" + ref;
      if (!seen.insert(store).second) continue;
      plan.actions.push_back({PlanOp::RenameBranch, key, m->second.kind, ref, "-> " + fresh,
                              Json{{"locator", m->second.locator}, {"new", fresh}}});
    }
  }

  // What changes in each working-tree manifest.
  void plan_manifests() {
    for (const auto& [key, m] : cx.manifests) {
      std::vector<std::string> changes;
      const auto text = model::read_checkout_file(model::manifest_path(objects_dir(cx), key));
      if (text) {
        const Json doc = model::parse_toml(*text, key + ".toml");
        if (auto pol = doc.find("policy"); pol != doc.end() && pol->is_object() && pol->contains("write"))
          changes.push_back("drops the legacy write policy");
      }
      if (m.pin && new_pin_of.count(m.pin->id)) changes.push_back("names pin " + model::pin_ref(new_pin_of.at(m.pin->id)));
      // Before version 4 every relative local path; before 5 DuckLake's catalog path too
      // (0.1.0b3 kept `ducklake:sqlite:cat.db` as written).
      const bool paths = payload.from < 4 || (payload.from < 5 && m.kind == "ducklake");
      const Json locator = paths ? plan_locator(m) : m.locator;
      plan_state(m, locator);
      if (!changes.empty())
        plan.actions.push_back({PlanOp::RewriteManifest, key, m.kind, key, join(changes, "; "), Json::object()});
    }
  }

  // Relative local paths, from the dataset root (as versions before 4 read them). Returns the
  // locator the upgraded manifest has.
  Json plan_locator(const model::ObjectManifest& m) {
    Json fresh = stored_locator(cx.backend(m.kind), m.key, m.locator, cx.root);
    if (fresh == m.locator) return fresh;
    std::vector<std::string> fields;
    for (const auto& [k, v] : fresh.items())
      if (!m.locator.contains(k) || m.locator[k] != v) fields.push_back(k + ": " + model::py_str(m.locator.value(k, Json(nullptr))) + " -> " + model::py_str(v));
    plan.actions.push_back({PlanOp::RewriteLocator, m.key, m.kind, m.key, join(fields, "; "), Json{{"locator", fresh}}});
    return fresh;
  }

  // Before version 4 a manifest sat at its key's legacy path (`foo.bar` as `foo.toml`, where
  // two keys could meet): each moves to its own file.
  void plan_layout() {
    for (const auto& [key, m] : cx.manifests) {
      const auto legacy = model::legacy_manifest_path(key);
      if (legacy == model::key_to_manifest_path({}, key) ||
          model::checkout_entry_exists(model::manifest_path(objects_dir(cx), key)))
        continue;
      plan.actions.push_back({PlanOp::RenameManifest, key, m.kind, ".tether/objects/" + legacy.generic_string(),
                              "-> .tether/objects/" + model::key_to_manifest_path({}, key).generic_string(),
                              Json::object()});
    }
  }

  // States recorded in an older shape, recorded again where the data is unchanged (docs/cli.md
  // #upgrade): a local file's state before version 3 (`size` and `mtime_ns`), a local
  // directory's digest before version 3 (over `<size>:<mtime_ns>` tokens) or before version 5
  // (without rows for symlinks to directories or dangling ones). Anything else is kept, and
  // shows as changed until it is committed again.
  void plan_state(const model::ObjectManifest& m, const Json& locator) {
    if (m.kind != "file" || !m.state || !m.state->is_object()) return;
    const Json& st = *m.state;
    const auto uri = locator.find("uri");
    if (uri == locator.end() || !uri->is_string() || uri->get<std::string>().find("://") != std::string::npos) return;
    const std::string type = st.value("type", std::string());
    const bool old_file = type == "file" && st.contains("mtime_ns") && !st.contains("sha256");
    if (!old_file && !(type == "dir" && st.contains("digest") && st["digest"].is_string())) return;
    auto& b = cx.backend(m.kind);
    const fs::path root(uri->get<std::string>());
    auto changed = [&](const std::string& why) {
      plan.notes.push_back(m.key + ": its state was recorded in an older shape and " + why +
                           "; it shows as changed until it is committed again");
    };
    try {
      if (old_file) {
        struct stat sb {};
        if (::stat(root.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) return changed("the file is not there now");
        const int64_t mtime_ns = int64_t(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
        if (st.value("size", int64_t(-1)) != int64_t(sb.st_size) || st.value("mtime_ns", int64_t(-1)) != mtime_ns)
          return changed("the file changed since");
        add_state(m, PlanOp::Refingerprint, b.fingerprint(locator, std::nullopt, m.key), "content-hashed");
        return;
      }
      const Json fresh = b.fingerprint(locator, std::nullopt, m.key);
      if (b.same(fresh, st)) return;
      const auto text = b.listing(locator, fresh, m.key);
      if (!text) return changed("no listing of the directory is to be had");
      // The rows (path, token) as this version lists them, and both older digests of them.
      std::string without_links, by_mtime;
      bool mtime_ok = payload.from < 3, links = false;
      std::istringstream in(*text);
      for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const Json row = Json::parse(line);
        const std::string p = row.at("p").get<std::string>(), k = row.at("k").get<std::string>();
        if (k.rfind("symlink:", 0) == 0) {
          links = true;
          continue;
        }
        without_links += p + '\0' + k + '\0';
        struct stat sb {};
        if (mtime_ok && ::stat((root / p).c_str(), &sb) == 0)
          by_mtime += p + '\0' + std::to_string(sb.st_size) + ":" +
                      std::to_string(int64_t(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec) + '\0';
        else mtime_ok = false;
      }
      // From version 3 on, a directory without symlinks was recorded as it is now: it changed.
      if (payload.from >= 3 && !links) return;
      const std::string digest = st["digest"].get<std::string>();
      if (mtime_ok && model::blake2b_hex(by_mtime, 16) == digest)
        add_state(m, PlanOp::Refingerprint, fresh, "content-hashed");
      else if (model::blake2b_hex(without_links, 16) == digest)
        add_state(m, PlanOp::RewriteState, fresh, "with its symlinks");
      else changed("the directory changed since");
    } catch (const std::exception& e) {
      changed(std::string("cannot be read now (") + e.what() + ")");
    }
  }
  void add_state(const model::ObjectManifest& m, PlanOp op, const Json& fresh, const std::string& how) {
    plan.actions.push_back({op, m.key, m.kind, m.key,
                            "data unchanged; recorded again " + how + " (" + model::short_state(fresh) + ")",
                            Json{{"state", fresh}}});
  }

  // The created-stores and touched-stores indexes: each record of this dataset gets the
  // identity this version gives its locator (0.1.0b3's identities differ for some kinds).
  void plan_indexes() {
    for (const auto& [name, index] : {std::pair{"tether-created.jsonl", created_index(cx)},
                                      std::pair{"tether-touched.jsonl", touched_index(cx)}}) {
      std::size_t n = 0;
      for (const auto& r : index.stores())
        if (r.dataset_id == cx.dataset_id && index_identity(cx, r)) ++n;
      if (n)
        plan.actions.push_back({PlanOp::RewriteIndex, "", "", name,
                                std::to_string(n) + " record(s) get the identity this version gives their locator",
                                Json{{"records", n}}});
    }
  }
};

std::string renamed_text(const std::string& text, const std::string& from, const std::string& to) {
  std::string out = text;
  const std::string a = "\"" + from + "\"", b = "\"" + to + "\"";
  for (auto pos = out.find(a); pos != std::string::npos; pos = out.find(a, pos + b.size())) out.replace(pos, a.size(), b);
  return out;
}

// The manifest text with its pin renamed, or nullopt when it names none of `renamed`.
std::optional<std::string> history_manifest(const std::map<std::string, std::string>& renamed, const std::string& path,
                                            const std::string& text) {
  const auto slash = path.rfind('/');
  std::string key = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (key.size() < 5 || key.compare(key.size() - 5, 5, ".toml") != 0) return std::nullopt;
  std::optional<sdk::Pin> pin;
  try {
    pin = model::parse_manifest(text, path).pin;
  } catch (const ConfigError&) {
    return std::nullopt;
  }
  if (!pin) return std::nullopt;
  auto it = renamed.find(pin->id);
  if (it == renamed.end()) return std::nullopt;
  return renamed_text(renamed_text(text, pin->ref, model::pin_ref(it->second)), pin->id, it->second);
}

}  // namespace

std::string outdated_message(int version) {
  std::vector<std::string> pending;
  for (const auto& m : kMigrations)
    if (m.to > version) pending.push_back("v" + std::to_string(m.to) + " " + m.title);
  return "tether.toml is version " + std::to_string(version) + "; this tether expects " +
         std::to_string(model::kConfigVersion) + ". Run `tether upgrade --dry-run`, then `tether upgrade` (pending: " +
         join(pending, ", ") + ")";
}

static UpgradeResult apply_upgrade(Context& cx, const Plan& plan);


// The store renames, in plan order; the first that fails stops the upgrade (false).
static bool rename_in_stores(Context& cx, const Plan& plan, UpgradeResult& res, OpLog& oplog, const std::string& op_id) {
  for (const auto& a : plan.actions) {
    if (a.op != PlanOp::RenamePin && a.op != PlanOp::RenameBranch) continue;
    try {
      auto& b = cx.backend(a.kind);
      if (a.op == PlanOp::RenamePin) {
        const sdk::Pin old{a.params["pin"]["id"].get<std::string>(), a.params["pin"]["ref"].get<std::string>(), false};
        sdk::Pin fresh = b.rename_pin(a.params["locator"], old, a.params["state"], a.params["new_id"].get<std::string>(), a.key);
        res.renamed_pins.emplace_back(old.ref, fresh.ref);
        // What undo needs to rename it back.
        oplog.progress(op_id, Json{{"action", "rename-pin"}, {"key", a.key}, {"kind", a.kind}, {"locator", a.params["locator"]},
                                   {"state", a.params["state"]}, {"from", old.ref}, {"from_id", old.id},
                                   {"ref", fresh.ref}, {"id", fresh.id}});
      } else if (a.op == PlanOp::RenameBranch) {
        const std::string fresh = b.rename_working_ref(a.params["locator"], a.target, a.params["new"].get<std::string>(), a.key);
        for (auto& [k, ref] : cx.workspace->working_refs)
          if (ref == a.target && cx.manifests.count(k) && cx.manifests.at(k).kind == a.kind) ref = fresh;
        res.renamed_branches.emplace_back(a.target, fresh);
        oplog.progress(op_id, Json{{"action", "rename-branch"}, {"key", a.key}, {"kind", a.kind},
                                   {"locator", a.params["locator"]}, {"from", a.target}, {"ref", fresh}});
      }
    } catch (const std::exception& e) {
      res.failed[(a.key.empty() ? "" : a.key + ": ") + std::string(op_name(a.op)) + " " + a.target] = e.what();
      return false;
    }
  }
  return true;
}

static UpgradeResult apply_upgrade(Context& cx, const Plan& plan) {
  auto lock_c = lock_checkout(cx);
  auto lock_r = lock_repository(cx);
  const UpgradePayload ctx = UpgradePayload::from_plan(plan);
  UpgradeResult res;
  res.plan = plan;
  res.from_version = ctx.from;
  if (ctx.from >= model::kConfigVersion) {
    res.applied = true;
    return res;
  }
  std::vector<std::string> tracked{vcs_path(cx, ".tether/objects"), vcs_path(cx, "tether.toml")};
  if (cx.vcs->head() && cx.vcs->is_dirty(tracked))
    throw TetherError("the dataset's manifests have uncommitted changes; commit or restore them before upgrading");
  if (ctx.id_given) res.dataset_id = ctx.dataset_id;
  res.trunk = ctx.trunk;

  OpLog oplog = op_log(cx);
  const auto config_text = model::read_checkout_file({cx.root, "tether.toml"});
  Json pre_objects = Json::object();  // the texts as they are, for undo to put back
  for (const auto& [k, m] : cx.manifests) {
    auto text = model::read_checkout_file(model::manifest_path(objects_dir(cx), k));
    pre_objects[k] = text ? Json(*text) : Json(model::manifest_to_toml(m));
  }
  const std::string op_id = oplog.begin(
      "upgrade", Json{{"objects", pre_objects}, {"workspace", model::workspace_to_toml(*cx.workspace)},
                      {"config", config_text ? Json(*config_text) : Json(nullptr)}});
  auto finish = [&] {
    Json r = res.to_json();
    oplog.end(op_id, r);
  };
  if (!rename_in_stores(cx, plan, res, oplog, op_id)) {
    write_workspace(cx);
    finish();
    return res;
  }
  std::map<std::string, std::string> renamed;  // legacy pin id -> new
  for (const auto& a : plan.actions)
    if (a.op == PlanOp::RenamePin) renamed[a.params["pin"]["id"].get<std::string>()] = a.params["new_id"].get<std::string>();
  try {
    for (const auto& a : plan.actions) {
      if (a.op != PlanOp::RewriteHistory) continue;
      res.rewritten_commits = cx.vcs->rewrite_history(vcs_path(cx, ".tether/objects"), [&](const std::string& path, const std::string& text) {
        return history_manifest(renamed, path, text);
      }).size();
      oplog.progress(op_id, Json{{"action", "rewrite-history"}, {"commits", res.rewritten_commits}});
      auto ws = std::move(cx.workspace);
      reload(cx);  // the checked-out commit's manifests, rewritten
      cx.workspace = std::move(ws);
    }
    for (const auto& a : plan.actions) {
      const bool state = a.op == PlanOp::Refingerprint || a.op == PlanOp::RewriteState;
      if (a.op != PlanOp::RewriteManifest && a.op != PlanOp::RewriteLocator && a.op != PlanOp::RenameManifest && !state)
        continue;
      auto& m = cx.manifests.at(a.key);
      if (m.pin)
        if (auto it = renamed.find(m.pin->id); it != renamed.end()) m.pin = sdk::Pin{it->second, model::pin_ref(it->second), false};
      if (a.op == PlanOp::RewriteLocator) m.locator = a.params["locator"];
      if (state) {
        m.state = a.params["state"];
        write_listing(cx, m, *m.state);
      }
      model::write_manifest(objects_dir(cx), m);  // written as this version writes it: no `write`
      if (a.op == PlanOp::RenameManifest)  // derived from the key, never from the plan's text
        model::remove_checkout_file(objects_dir(cx) / model::legacy_manifest_path(a.key));
      auto& list = a.op == PlanOp::Refingerprint ? res.refingerprinted : res.rewritten_manifests;
      if (std::find(list.begin(), list.end(), a.key) == list.end()) list.push_back(a.key);
    }
    for (const auto& a : plan.actions) {
      if (a.op != PlanOp::RewriteIndex) continue;
      StoreIndex index = a.target == "tether-created.jsonl" ? created_index(cx) : touched_index(cx);
      res.rewritten_indexes[a.target] = index.rewrite([&](StoreRecord& r) {
        if (r.dataset_id != cx.dataset_id) return false;
        auto id = index_identity(cx, r);
        if (id) r.identity = std::move(*id);
        return id.has_value();
      });
      oplog.progress(op_id, Json{{"action", "rewrite-index"}, {"index", a.target}, {"records", res.rewritten_indexes[a.target]}});
    }
    model::RepoConfig config = cx.config;
    config.version = model::kConfigVersion;
    config.dataset_id = ctx.dataset_id;
    if (ctx.trunk) config.vcs_trunk = ctx.trunk;
    model::write_repo_config({cx.root, "tether.toml"}, config);
    cx.config = config;
    cx.dataset_id = ctx.dataset_id;
    model::ensure_ignored(tether_dir(cx), /*only_present=*/false);
    if (cx.vcs->is_dirty(vcs_paths(cx)))
      res.vcs_commit = cx.vcs->commit(vcs_paths(cx), "tether upgrade: v" + std::to_string(ctx.from) + " -> v" +
                                                         std::to_string(model::kConfigVersion));
  } catch (const std::exception& e) {
    res.failed["upgrade"] = e.what();
    write_workspace(cx);
    finish();
    throw;
  }
  write_workspace(cx);
  res.to_version = model::kConfigVersion;
  res.applied = true;
  finish();
  return res;
}

UpgradeResult upgrade(Repo& repo, const UpgradeOptions& opt) {
  Context& cx = Context::of(repo);
  auto lock_c = lock_checkout(cx);
  auto rederive = [&](const Plan& p) {
    const UpgradePayload ctx = UpgradePayload::from_plan(p);
    check_preconditions(cx, p);
    UpgradeOptions again;
    again.ignore_immutable = ctx.ignore_immutable;
    require_rederived(p, UpgradePlanner{cx, again, {}, {}, {}}.run(ctx.dataset_id));
  };
  UpgradeResult res = run_planned<UpgradeResult>(
      opt.saved, opt.dry_run, rederive, [&] { return UpgradePlanner{cx, opt, {}, {}, {}}.run(std::nullopt); },
      [&](const Plan& p) { return apply_upgrade(cx, p); });
  if (!res.applied) res.from_version = cx.config.version;
  return res;
}

// ---- undoing an upgrade (undo.cpp runs it; engine/undoer.hpp) ----

// Everything an upgrade did is put back in reverse: its branches and pins renamed back (the op
// log's progress says where and from what state), the history rewritten back (which gives
// the original commits their original ids: same trees, parents and metadata), the upgrade's
// commit removed with its files, and the workspace restored. While any commit was rewritten,
// its commit must still be the checked-out one.
namespace {
struct Renamed {
  std::vector<Json> pins, branches;
  std::size_t commits = 0;
};
Renamed renamed_by(const Undoer& u) {
  Renamed r;
  for (const auto& p : u.target.progress) {
    const std::string a = str_of(p, "action");
    if (a == "rename-pin") r.pins.push_back(p);
    else if (a == "rename-branch") r.branches.push_back(p);
  }
  const Json& c = u.target.result.value("rewritten_commits", Json(0));
  if (c.is_number_unsigned()) r.commits = c.get<std::size_t>();
  return r;
}
bool usable(const Json& p, std::initializer_list<const char*> fields) {
  for (const char* f : fields)
    if (!p.contains(f)) return false;
  return p["locator"].is_object() && p["kind"].is_string();
}
}  // namespace

void undo_upgrade(Undoer& u) {
  const Renamed r = renamed_by(u);
  const std::string c = str_of(u.target.result, "vcs_commit");
  if (!c.empty() && u.cx.vcs->head() != c) {
    u.irreversible.push_back("commit " + c.substr(0, 12) + " is no longer the working copy's parent; remove it with git first");
    return;
  }
  std::map<std::string, std::string> back;  // new pin id -> legacy
  for (const auto& p : r.branches) {
    if (!usable(p, {"from", "ref"})) {
      u.irreversible.push_back(str_of(p, "key") + ": branch " + str_of(p, "ref") + " (the op log does not say where it was)");
      continue;
    }
    try {
      u.cx.backend(str_of(p, "kind")).rename_working_ref(p["locator"], str_of(p, "ref"), str_of(p, "from"), str_of(p, "key"));
      u.restored.push_back(str_of(p, "key") + ": branch " + str_of(p, "ref") + " -> " + str_of(p, "from"));
    } catch (const std::exception& e) {
      u.irreversible.push_back(str_of(p, "key") + ": branch " + str_of(p, "ref") + " stays (" + e.what() + ")");
    }
  }
  for (const auto& p : r.pins) {
    if (!usable(p, {"state", "id", "ref", "from_id"})) {
      u.irreversible.push_back(str_of(p, "key") + ": pin " + str_of(p, "ref") + " (the op log does not say where it was)");
      continue;
    }
    try {
      const sdk::Pin now{str_of(p, "id"), str_of(p, "ref"), false};
      u.cx.backend(str_of(p, "kind")).rename_pin(p["locator"], now, p["state"], str_of(p, "from_id"), str_of(p, "key"));
      back[now.id] = str_of(p, "from_id");
      u.restored.push_back(str_of(p, "key") + ": pin " + now.ref + " -> " + str_of(p, "from"));
    } catch (const std::exception& e) {
      u.irreversible.push_back(str_of(p, "key") + ": pin " + str_of(p, "ref") + " stays (" + e.what() + ")");
    }
  }
  if (r.commits && !back.empty()) {
    const std::size_t n = u.cx.vcs->rewrite_history(vcs_path(u.cx, ".tether/objects"), [&](const std::string& path, const std::string& text) {
      return history_manifest(back, path, text);
    }).size();
    u.restored.push_back(std::to_string(n) + " commit(s) rewritten back");
  }
  if (!c.empty()) {
    // The commit goes with its files: index and working tree back at its parent.
    const std::string head = u.cx.vcs->head().value_or(c);
    u.cx.vcs->abandon({head}, vcs_path(u.cx, ".tether/objects"));
    u.restored.push_back("removed commit " + head.substr(0, 12) + "; the files are its parent's again");
  } else {
    u.restore_manifests();
    if (auto config = u.target.pre.find("config"); config != u.target.pre.end() && config->is_string()) {
      model::write_checkout_file({u.cx.root, "tether.toml"}, config->get<std::string>());
      u.restored.push_back("tether.toml: as it was before the upgrade");
    }
  }
  // The older format again: its manifests are read as that version laid them out.
  u.cx.config = model::read_repo_config({u.cx.root, "tether.toml"});
  u.restore_workspace();
}
void plan_undo_upgrade(Undoer& u) {
  const Renamed r = renamed_by(u);
  for (const auto& p : r.branches)
    u.act(PlanOp::RenameBranch, str_of(p, "key"), str_of(p, "kind"), str_of(p, "ref"), "back to " + str_of(p, "from"));
  for (const auto& p : r.pins)
    u.act(PlanOp::RenamePin, str_of(p, "key"), str_of(p, "kind"), str_of(p, "ref"), "back to " + str_of(p, "from"));
  if (r.commits) u.act(PlanOp::RewriteHistory, "", "", "history", "every commit's manifests name the legacy pins again");
  const std::string c = str_of(u.target.result, "vcs_commit");
  if (!c.empty()) {
    u.act(PlanOp::Uncommit, "", "", c.substr(0, 12), "the upgrade's commit, with its files", Json{{"commit", c}});
    if (u.cx.vcs->head() != c) u.note("commit " + c.substr(0, 12) + " is no longer the working copy's parent; remove it with git first");
  } else {
    u.plan_manifests();
    u.act(PlanOp::RestoreManifest, "", "", "tether.toml", "as it was before the upgrade");
  }
  u.plan_workspace();
}

Json UpgradeResult::to_json() const {
  auto pairs = [](const std::vector<std::pair<std::string, std::string>>& v) {
    Json out = Json::array();
    for (const auto& [a, b] : v) out.push_back(Json::array({a, b}));
    return out;
  };
  Json j{{"from_version", from_version},
         {"to_version", to_version},
         {"dataset_id", dataset_id ? Json(*dataset_id) : Json(nullptr)},
         {"trunk", trunk ? Json(*trunk) : Json(nullptr)},
         {"renamed_pins", pairs(renamed_pins)},
         {"renamed_branches", pairs(renamed_branches)},
         {"rewritten_commits", rewritten_commits},
         {"refingerprinted", refingerprinted},
         {"rewritten_manifests", rewritten_manifests},
         {"rewritten_indexes", rewritten_indexes},
         {"copied_listings", 0},
         {"failed", failed},
         {"vcs_commit", vcs_commit ? Json(*vcs_commit) : Json(nullptr)}};
  return j;
}

}  // namespace tether::engine
