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

bool VerifyResult::ok() const {
  for (const auto& e : entries)
    if (e.status != "ok") return false;
  return true;
}

VerifyResult Repo::verify(const VerifyOptions& opt) {
  VerifyResult out;
  struct Target {
    std::string label;
    const model::ObjectManifest* m;
  };
  std::vector<Target> targets;
  std::vector<std::shared_ptr<std::map<std::string, model::ObjectManifest>>> keep;  // owns the manifests

  if (opt.all_history) {
    // Commits whose objects/ tree is identical share one parsed map, and a manifest file
    // that many trees hold is parsed once.
    std::unordered_map<const vcs::FileMap*, std::shared_ptr<std::map<std::string, model::ObjectManifest>>> parsed;
    std::unordered_map<std::string, model::ObjectManifest> by_text;  // path \0 text -> manifest
    std::vector<std::shared_ptr<const vcs::FileMap>> files_keep;
    vcs::HistoryQuery q;
    q.all = true;
    std::string dir = vcs_path(".tether/objects");
    for (const auto& c : vcs_->history(q)) {
      auto files = vcs_->manifests_at(c.id, dir);
      auto& ms = parsed[files.get()];
      if (!ms) {
        files_keep.push_back(files);
        ms = std::make_shared<std::map<std::string, model::ObjectManifest>>();
        for (const auto& [rel, text] : *files) {
          std::string k = rel + '\0' + text;
          auto it = by_text.find(k);
          if (it == by_text.end()) {
            vcs::FileMap one{{rel, text}};
            auto parsed_one = parse_manifest_files(one, c.id);
            if (parsed_one.empty()) continue;  // not a manifest
            it = by_text.emplace(std::move(k), std::move(parsed_one.begin()->second)).first;
          }
          ms->emplace(it->second.key, it->second);
        }
        keep.push_back(ms);
      }
      for (const auto& [key, m] : *ms) {
        if (!m.state) continue;
        if (!m.pin && !m.recoverable) {  // Observed records promise nothing
          ++out.skipped_observed;
          continue;
        }
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
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace tether::engine
