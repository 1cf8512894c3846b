// core/src/engine/verify.cpp: check that pins and recorded states still resolve (docs/cli.md,
// `tether verify`). Identical (kind, identity, state, pin) records are verified once,
// concurrently; a history walk reads each commit's manifests through the VCS's tree cache.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "engine/history_index.hpp"
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
    const model::ObjectManifest* m;                  // a parsed manifest, or
    std::uint32_t record = HistoryIndex::kNotIndexed;  // a record of the history index
  };

  Context& cx;
  const VerifyOptions& opt;
  VerifyResult out;
  std::vector<Target> targets;
  std::vector<std::shared_ptr<std::map<std::string, model::ObjectManifest>>> keep;  // owns the manifests
  std::shared_ptr<void> keep_parsed;                                                // ... of a history walk
  std::vector<std::shared_ptr<const vcs::FileMap>> keep_files;                      // the texts they were read from
  std::shared_ptr<const HistoryIndex> index;                                        // ... or the history index
  std::deque<model::ObjectManifest> from_index;    // the index's records that are verified, as manifests
  std::vector<std::size_t> target_job;             // per target: its record in jobs
  std::vector<const model::ObjectManifest*> jobs;  // one per distinct record
  std::vector<std::string> job_tail;               // per job: cb(state) + "," + cb(pin)
  std::vector<std::string> job_where;              // per job: kind + '\0' + cb(locator)
  std::unordered_map<std::string, std::size_t> by_record;  // cb([kind, locator, state, pin]) -> job
  std::unordered_map<std::string_view, Json> locators;     // the index's locator texts, parsed
  std::vector<std::size_t> job_slot;               // per job: its identity in unique
  std::vector<const model::ObjectManifest*> unique;

  Verifier(Context& r, const VerifyOptions& o) : cx(r), opt(o) {}

  VerifyResult run() {
    if (opt.all_history) gather_history();
    else gather_commit();
    fold_records();
    fold_identities();
    report(verify_unique());
    if (opt.leave_memory_to_exit) {
      struct Walk {
        std::vector<Target> targets;
        std::vector<std::shared_ptr<std::map<std::string, model::ObjectManifest>>> keep;
        std::shared_ptr<void> parsed;
        std::vector<std::shared_ptr<const vcs::FileMap>> files;
        std::shared_ptr<const HistoryIndex> index;
        std::deque<model::ObjectManifest> from_index;
      };
      keep_until_exit(std::make_shared<const Walk>(Walk{std::move(targets), std::move(keep), std::move(keep_parsed),
                                                        std::move(keep_files), std::move(index),
                                                        std::move(from_index)}));
    }
    return std::move(out);
  }

  // Every commit's records from the history index; a commit the index does not hold (a
  // manifest there does not parse) is read from the VCS and parsed, failing as it always did.
  void gather_history() {
    index = HistoryIndex::load(cx, opt.reading);
    std::unordered_map<const vcs::FileMap*, std::vector<const model::ObjectManifest*>> tree_manifests;
    auto parsed = std::make_shared<std::unordered_map<const std::string*, std::optional<model::ObjectManifest>>>();
    const std::string dir = vcs_path(cx, ".tether/objects");
    std::size_t records = 0;
    for (const auto& c : index->commits())
      if (c.tree != HistoryIndex::kNotIndexed) records += index->tree(c.tree).size();
    targets.reserve(records);
    for (const auto& c : index->commits()) {
      const std::string short_id = c.id.substr(0, 12) + ":";
      if (c.tree != HistoryIndex::kNotIndexed) {
        for (std::uint32_t n : index->tree(c.tree)) {
          const auto& r = index->manifests()[n];
          if (r.state.empty()) continue;
          if (r.pin_id.empty() && !r.recoverable) {  // Observed records promise nothing
            ++out.skipped_observed;
            continue;
          }
          std::string label = short_id;
          label += r.key;
          targets.push_back({std::move(label), nullptr, n});
        }
        continue;
      }
      auto files = cx.vcs->manifests_at(c.id, dir);
      auto [known, first] = tree_manifests.try_emplace(files.get());
      auto& ms = known->second;
      if (first) {
        keep_files.push_back(files);
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
        if (!m->pin && !m->recoverable) {
          ++out.skipped_observed;
          continue;
        }
        targets.push_back({short_id + m->key, m});
      }
    }
    keep_parsed = parsed;
  }

  // --rev's manifests, else the working tree's.
  void gather_commit() {
    auto ms = std::make_shared<std::map<std::string, model::ObjectManifest>>(opt.rev ? manifests_at(cx, *opt.rev)
                                                                                      : cx.manifests);
    keep.push_back(ms);
    for (const auto& [key, m] : *ms)
      if (m.state) targets.push_back({key, &m});
  }

  // Dedupe by the parsed manifest (one per distinct text) or index record, then by
  // cb([kind, locator, state, pin]) (no plugin call). The signature is that canonical text,
  // written piece by piece (canonical JSON of an array is its elements' joined by ','), so the
  // locator and state are not copied into an array first, and the [state, pin] part is kept
  // for fold_identities.
  void fold_records() {
    std::unordered_map<const model::ObjectManifest*, std::size_t> by_manifest;
    std::vector<std::size_t> by_index(index ? index->manifests().size() : 0, SIZE_MAX);
    target_job.resize(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (const std::uint32_t n = targets[i].record; n != HistoryIndex::kNotIndexed) {
        if (by_index[n] == SIZE_MAX) by_index[n] = indexed_job(index->manifests()[n]);
        target_job[i] = by_index[n];
        continue;
      }
      const auto* m = targets[i].m;
      auto known = by_manifest.find(m);
      if (known == by_manifest.end()) {
        std::string tail = record_tail(support::canonical_json(*m->state), m->pin ? &m->pin->id : nullptr,
                                       m->pin ? &m->pin->ref : nullptr);
        known = by_manifest.emplace(m, job_for(m->kind, support::canonical_json(m->locator), std::move(tail), [&] { return m; })).first;
      }
      target_job[i] = known->second;
    }
  }

  static std::string record_tail(std::string tail, const std::string* pin_id, const std::string* pin_ref) {
    tail += ',';
    if (pin_id) {
      tail += "{\"id\":";
      tail += support::canonical_json(Json(*pin_id));
      tail += ",\"ref\":";
      tail += support::canonical_json(Json(*pin_ref));
      tail += '}';
    } else {
      tail += "null";
    }
    return tail;
  }

  // The job of signature [kind, locator, tail]; `make` gives its manifest when it is new.
  template <class Make>
  std::size_t job_for(const std::string& kind, std::string locator, std::string tail, const Make& make) {
    std::string sig = "[" + support::canonical_json(Json(kind)) + "," + locator + "," + tail + "]";
    auto [it, inserted] = by_record.emplace(std::move(sig), jobs.size());
    if (inserted) {
      jobs.push_back(make());
      job_tail.push_back(std::move(tail));
      job_where.push_back(kind + '\0' + locator);
    }
    return it->second;
  }

  // A record of the history index, whose texts are already canonical: its manifest is built
  // (the state parsed; each distinct locator once) only for a record no other target had.
  std::size_t indexed_job(const IndexedManifest& r) {
    const std::string pin_id(r.pin_id), pin_ref(r.pin_ref), kind(r.kind);
    std::string tail = record_tail(std::string(r.state), r.pin_id.empty() ? nullptr : &pin_id, &pin_ref);
    return job_for(kind, std::string(r.locator), std::move(tail), [&] {
      model::ObjectManifest m;
      m.key = r.key;
      m.kind = kind;
      m.recoverable = r.recoverable;
      if (!pin_id.empty()) m.pin = sdk::Pin{pin_id, pin_ref, false};  // as parse_manifest reads it
      try {
        auto loc = locators.find(r.locator);
        if (loc == locators.end()) loc = locators.emplace(r.locator, Json::parse(r.locator)).first;
        m.locator = loc->second;
        m.state = Json::parse(r.state);
      } catch (const Json::exception&) {
        // Only an index damaged on disk holds invalid JSON: verified as written, it fails.
        m.locator = std::string(r.locator);
        m.state = std::string(r.state);
      }
      from_index.push_back(std::move(m));
      return &from_index.back();
    });
  }

  // Records with equal identity (a locator spelled two ways) fold together too. The
  // identity depends on the kind and locator alone, so it is asked once per distinct locator
  // (a long history names a few dozen locators in thousands of records).
  void fold_identities() {
    std::unordered_map<std::string, std::size_t> by_identity;
    std::unordered_map<std::string, std::optional<std::string>> identities;  // kind + locator -> identity text
    job_slot.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto* m = jobs[j];
      std::string sig;
      const std::string& where = job_where[j];
      auto known = identities.find(where);
      if (known == identities.end()) {
        std::optional<std::string> id;
        try {
          id = support::canonical_json(cx.backend(m->kind).identity(m->locator, m->key));
        } catch (const std::exception&) {
        }
        known = identities.emplace(where, std::move(id)).first;
      }
      if (known->second) {
        // cb([kind, identity text, state, pin]), as fold_records writes it
        sig = "[" + support::canonical_json(Json(m->kind)) + "," + support::canonical_json(Json(*known->second)) + "," +
              job_tail[j] + "]";
      } else {
        sig = "job:" + std::to_string(j);  // verified (and fails) on its own
      }
      auto [it, inserted] = by_identity.emplace(std::move(sig), unique.size());
      if (inserted) unique.push_back(m);
      job_slot[j] = it->second;
    }
  }

  struct Answer {
    std::optional<sdk::VerifyReport> report;
    std::string message;  // why there is none
  };

  // The distinct records, in batches: each kind's records split into at most kMaxFanout
  // batches verified concurrently, each one verify_many call (a plugin without it is asked
  // once per record by the host).
  std::vector<Answer> verify_unique() {
    std::map<std::string, std::vector<std::size_t>> by_kind;
    for (std::size_t i = 0; i < unique.size(); ++i) by_kind[unique[i]->kind].push_back(i);
    struct Batch {
      std::string kind;
      std::vector<std::size_t> items;  // indexes into unique
    };
    std::vector<Batch> batches;
    for (auto& [kind, items] : by_kind) {
      std::size_t n = items.size(), parts = std::min(n, kMaxFanout), start = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        std::size_t len = n / parts + (p < n % parts ? 1 : 0);
        batches.push_back({kind, std::vector<std::size_t>(items.begin() + start, items.begin() + start + len)});
        start += len;
      }
    }
    std::vector<Answer> out(unique.size());
    std::atomic<std::size_t> done{0};
    auto outcomes = fan_out<bool>(batches.size(), [&](std::size_t b) {
      const Batch& batch = batches[b];
      // The manifests' own locators, states and pins, not copies of them.
      std::vector<host::BackendProxy::VerifyItem> requests;
      requests.reserve(batch.items.size());
      for (std::size_t i : batch.items) {
        const auto* m = unique[i];
        requests.push_back({&m->locator, &*m->state, &m->pin, opt.deep});
      }
      auto results = cx.backend(batch.kind).verify_items(requests);
      for (std::size_t k = 0; k < batch.items.size(); ++k) {
        auto& a = out[batch.items[k]];
        if (results[k].report) a.report = std::move(*results[k].report);
        else a.message = std::move(results[k].message);
      }
      std::size_t d = done.fetch_add(batch.items.size()) + batch.items.size();
      if (opt.progress) opt.progress(d, unique.size());
      return true;
    });
    for (std::size_t b = 0; b < batches.size(); ++b)
      if (!outcomes[b].ok())
        for (std::size_t i : batches[b].items) out[i].message = outcomes[b].message();
    return out;
  }

  // The targets' labels move into the entries: nothing reads a target after this.
  void report(const std::vector<Answer>& results) {
    out.entries.reserve(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const auto& r = results[job_slot[target_job[i]]];
      VerifyEntry e{std::move(targets[i].label), "unknown", ""};
      if (r.report) {
        e.status = sdk::verify_status_name(r.report->status);
        e.message = r.report->message;
      } else {
        e.message = r.message;
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
