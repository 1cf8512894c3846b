// core/src/engine/verify.cpp: check that pins and recorded states still resolve (docs/cli.md,
// `tether verify`). Identical (kind, identity, state, pin) records are verified once,
// concurrently; a history walk reads each commit's manifests through the VCS's tree cache.
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/engine/verify.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/json.hpp"
#include "tether/support/canonical_json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

bool VerifyResult::ok() const {
  for (const auto& e : entries)
    if (e.status != "ok") return false;
  return true;
}

// Verifying, stage by stage: gather the records to check (the whole history's or one
// commit's), fold identical records together (by parsed manifest, by record, by identity),
// verify each distinct one concurrently, and report one entry per record.
struct Verifier {
  struct Target {
    std::string label;
    const model::ObjectManifest* m;
  };

  Context& cx;
  const VerifyOptions& opt;
  VerifyResult out;
  std::vector<Target> targets;
  std::vector<std::shared_ptr<std::map<std::string, model::ObjectManifest>>> keep;  // owns the manifests
  std::shared_ptr<void> keep_parsed;                                                // ... of a history walk
  std::vector<std::shared_ptr<const vcs::FileMap>> keep_files;                      // the texts they were read from
  std::vector<std::size_t> target_job;             // per target: its record in jobs
  std::vector<const model::ObjectManifest*> jobs;  // one per distinct record
  std::vector<std::size_t> job_slot;               // per job: its identity in unique
  std::vector<const model::ObjectManifest*> unique;

  Verifier(Context& r, const VerifyOptions& o) : cx(r), opt(o) {}

  VerifyResult run() {
    if (opt.all_history) gather_history();
    else gather_commit();
    fold_records();
    fold_identities();
    report(verify_unique());
    return std::move(out);
  }

  // Commits whose objects/ tree is identical are one map in the VCS cache and are read
  // once; a manifest text many trees hold is parsed once, and every record of it points at
  // that one parse (the texts live as long as `files_keep`).
  void gather_history() {
    std::unordered_set<const vcs::FileMap*> seen_trees;
    std::unordered_map<const vcs::FileMap*, std::vector<const model::ObjectManifest*>> tree_manifests;
    // Keyed by the shared text (vcs::Text::id): one blob is one object, no text is hashed.
    auto parsed = std::make_shared<std::unordered_map<const std::string*, std::optional<model::ObjectManifest>>>();
    std::vector<std::shared_ptr<const vcs::FileMap>> files_keep;
    vcs::HistoryQuery q;
    q.all = true;
    std::string dir = vcs_path(cx, ".tether/objects");
    for (const auto& c : cx.vcs->history(q)) {
      auto files = cx.vcs->manifests_at(c.id, dir);
      auto& ms = tree_manifests[files.get()];
      if (seen_trees.insert(files.get()).second) {
        files_keep.push_back(files);
        for (const auto& [rel, text] : *files) {
          auto it = parsed->find(text.id());
          if (it == parsed->end()) {
            vcs::FileMap one{{rel, text}};
            auto parsed_one = parse_manifest_files(one, c.id);
            std::optional<model::ObjectManifest> m;
            if (!parsed_one.empty()) m = std::move(parsed_one.begin()->second);
            it = parsed->emplace(text.id(), std::move(m)).first;
          }
          if (it->second) ms.push_back(&*it->second);  // else not a manifest
        }
      }
      for (const auto* m : ms) {
        if (!m->state) continue;
        if (!m->pin && !m->recoverable) {  // Observed records promise nothing
          ++out.skipped_observed;
          continue;
        }
        targets.push_back({c.id.substr(0, 12) + ":" + m->key, m});
      }
    }
    keep_parsed = parsed;
    keep_files = std::move(files_keep);
  }

  // --rev's manifests, else the working tree's.
  void gather_commit() {
    auto ms = std::make_shared<std::map<std::string, model::ObjectManifest>>(opt.rev ? manifests_at(cx, *opt.rev)
                                                                                      : cx.manifests);
    keep.push_back(ms);
    for (const auto& [key, m] : *ms)
      if (m.state) targets.push_back({key, &m});
  }

  // Dedupe by the parsed manifest (one per distinct text), then by cb([kind, locator, state,
  // pin]) (no plugin call).
  void fold_records() {
    std::unordered_map<const model::ObjectManifest*, std::size_t> by_manifest;
    std::map<std::string, std::size_t> by_record;
    target_job.resize(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const auto* m = targets[i].m;
      auto known = by_manifest.find(m);
      if (known != by_manifest.end()) {
        target_job[i] = known->second;
        continue;
      }
      Json pin = m->pin ? Json{{"id", m->pin->id}, {"ref", m->pin->ref}} : Json(nullptr);
      std::string sig = support::canonical_json(Json::array({m->kind, m->locator, *m->state, pin}));
      auto [it, inserted] = by_record.emplace(sig, jobs.size());
      if (inserted) jobs.push_back(m);
      target_job[i] = it->second;
      by_manifest.emplace(m, it->second);
    }
  }

  // Records with equal identity (a locator spelled two ways) fold together too.
  void fold_identities() {
    std::map<std::string, std::size_t> by_identity;
    job_slot.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto* m = jobs[j];
      std::string sig;
      try {
        Json pin = m->pin ? Json{{"id", m->pin->id}, {"ref", m->pin->ref}} : Json(nullptr);
        sig = support::canonical_json(Json::array({m->kind, cx.backend(m->kind).identity(m->locator, m->key), *m->state, pin}));
      } catch (const std::exception&) {
        sig = "job:" + std::to_string(j);  // verified (and fails) on its own
      }
      auto [it, inserted] = by_identity.emplace(sig, unique.size());
      if (inserted) unique.push_back(m);
      job_slot[j] = it->second;
    }
  }

  std::vector<Outcome<sdk::VerifyReport>> verify_unique() {
    return fan_out<sdk::VerifyReport>(
        unique.size(),
        [&](std::size_t i) {
          const auto* m = unique[i];
          return cx.backend(m->kind).verify(m->locator, *m->state, m->pin, opt.deep, m->key);
        },
        opt.progress);
  }

  void report(const std::vector<Outcome<sdk::VerifyReport>>& results) {
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const auto& r = results[job_slot[target_job[i]]];
      VerifyEntry e{targets[i].label, "unknown", ""};
      if (r.ok()) {
        e.status = sdk::verify_status_name(r.value->status);
        e.message = r.value->message;
      } else {
        e.message = r.message();
      }
      out.entries.push_back(std::move(e));
    }
  }
};

VerifyResult verify(Repo& repo, const VerifyOptions& opt) { Context& cx = Context::of(repo); return Verifier(cx, opt).run(); }

Json VerifyResult::to_json() const {
  Json obj = Json::object();
  for (const auto& e : entries) obj[e.label] = {{"status", e.status}, {"message", e.message}};
  return obj;
}

}  // namespace tether::engine
