// core/src/engine/verify.cpp: check that pins and recorded states still resolve (spec §4.14).
// Identical (kind, identity, state, pin) records are verified once, concurrently; a history
// walk reads each commit's manifests through the VCS's tree cache.
#include <unordered_map>

#include "engine/internal.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/json.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

std::vector<VerifyEntry> Repo::verify(const VerifyOptions& opt) {
  struct Target {
    std::string label;
    const model::ObjectManifest* m;
  };
  std::vector<Target> targets;
  std::vector<std::shared_ptr<std::map<std::string, model::ObjectManifest>>> keep;  // owns the manifests

  if (opt.all_history) {
    // Commits whose objects/ tree is identical share one parsed map.
    std::unordered_map<const vcs::FileMap*, std::shared_ptr<std::map<std::string, model::ObjectManifest>>> parsed;
    std::vector<std::shared_ptr<const vcs::FileMap>> files_keep;
    vcs::HistoryQuery q;
    q.all = true;
    std::string dir = vcs_path(".tether/objects");
    for (const auto& c : vcs_->history(q)) {
      auto files = vcs_->manifests_at(c.id, dir);
      auto& ms = parsed[files.get()];
      if (!ms) {
        files_keep.push_back(files);
        ms = std::make_shared<std::map<std::string, model::ObjectManifest>>(parse_manifest_files(*files, c.id));
        keep.push_back(ms);
      }
      for (const auto& [key, m] : *ms) {
        if (!m.state) continue;
        if (!m.pin && !m.recoverable) continue;  // Observed records promise nothing
        targets.push_back({c.id.substr(0, 12) + ":" + key, &m});
      }
    }
  } else {
    auto ms = std::make_shared<std::map<std::string, model::ObjectManifest>>(opt.rev ? manifests_at(*opt.rev) : manifests_);
    keep.push_back(ms);
    for (const auto& [key, m] : *ms)
      if (m.state) targets.push_back({key, &m});
  }

  // Dedupe by cb([kind, locator, state, pin]) first (no plugin call), then by identity.
  std::map<std::string, std::size_t> by_record;
  std::vector<std::size_t> target_job(targets.size());
  std::vector<const model::ObjectManifest*> jobs;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto* m = targets[i].m;
    Json pin = m->pin ? Json{{"id", m->pin->id}, {"ref", m->pin->ref}} : Json(nullptr);
    std::string sig = model::canonical_json(Json::array({m->kind, m->locator, *m->state, pin}));
    auto [it, inserted] = by_record.emplace(sig, jobs.size());
    if (inserted) jobs.push_back(m);
    target_job[i] = it->second;
  }
  // Records with equal identity (a locator spelled two ways) fold together too.
  std::map<std::string, std::size_t> by_identity;
  std::vector<std::size_t> job_slot(jobs.size());
  std::vector<const model::ObjectManifest*> unique;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto* m = jobs[j];
    std::string sig;
    try {
      Json pin = m->pin ? Json{{"id", m->pin->id}, {"ref", m->pin->ref}} : Json(nullptr);
      sig = model::canonical_json(Json::array({m->kind, backend(m->kind).identity(m->locator, m->key), *m->state, pin}));
    } catch (const std::exception&) {
      sig = "job:" + std::to_string(j);  // verified (and fails) on its own
    }
    auto [it, inserted] = by_identity.emplace(sig, unique.size());
    if (inserted) unique.push_back(m);
    job_slot[j] = it->second;
  }

  auto results = fan_out<sdk::VerifyReport>(
      unique.size(),
      [&](std::size_t i) {
        const auto* m = unique[i];
        return backend(m->kind).verify(m->locator, *m->state, m->pin, opt.deep, m->key);
      },
      opt.progress);

  std::vector<VerifyEntry> out;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& r = results[job_slot[target_job[i]]];
    VerifyEntry e{targets[i].label, "unknown", ""};
    if (r.ok()) {
      e.status = sdk::verify_status_name(r.value->status);
      e.message = r.value->message;
    } else {
      try {
        std::rethrow_exception(r.error);
      } catch (const BackendError& err) {
        e.message = err.bare_message();
      } catch (const std::exception& err) {
        e.message = err.what();
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace tether::engine
