// core/src/engine/verify.cpp: check that pins and recorded states still resolve (docs/cli.md,
// `tether verify`). Identical (kind, identity, state, pin) records are verified once,
// concurrently; a history walk reads each commit's manifests through the VCS's tree cache.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <string_view>
#include <thread>
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
#include "tether/support/json_text.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

bool VerifyResult::ok() const {
  for (const auto& a : answers)
    if (a.status != "ok") return false;
  return true;
}

void VerifyResult::append_label(std::string& out, std::size_t i) const {
  out.append(prefixes[rows[i].prefix]).append(records[rows[i].record].key);
}

std::string VerifyResult::label(std::size_t i) const {
  std::string out;
  append_label(out, i);
  return out;
}

namespace {

// What identical records have in common: equal [kind, locator (or identity), state, pin]
// are verified once. Views of canonical texts, so equal means equal JSON.
struct Sig {
  std::string_view kind, where, state;
  bool pinned = false;
  std::string_view pin_id, pin_ref;
  bool operator==(const Sig&) const = default;
};
// For records: the state and the pin id tell them apart (equal ones compare in full).
struct SigHash {
  std::size_t operator()(const Sig& s) const noexcept {
    std::hash<std::string_view> h;
    return (h(s.state) * 1000003u ^ h(s.pin_id)) * 1000003u ^ s.where.size() ^ static_cast<std::size_t>(s.pinned);
  }
};
// For [kind, locator or identity] alone.
struct WhereHash {
  std::size_t operator()(const Sig& s) const noexcept {
    std::hash<std::string_view> h;
    return h(s.kind) * 1000003u ^ h(s.where);
  }
};

// What the result keeps alive: the manifests its keys view, and what the verification read.
struct Kept {
  std::shared_ptr<const HistoryIndex> index;
  std::shared_ptr<const std::map<std::string, model::ObjectManifest>> commit_manifests;  // --rev / the working tree
  std::unordered_map<const std::string*, std::optional<model::ObjectManifest>> parsed;  // commits the index lacks
  std::vector<std::shared_ptr<const vcs::FileMap>> files;                              // ... and their texts
  std::deque<std::string> texts;                        // canonical texts of parsed manifests' locators and states
  std::unordered_map<std::string_view, Json> locators;  // the index's locator texts, parsed once each
  std::deque<Json> states;                              // index states not sent as text, parsed
};

}  // namespace

// Verifying, stage by stage: gather the records to check (the whole history's or one
// commit's) as rows, folding identical records into jobs as they come (by index record or
// parsed manifest, then by [kind, locator, state, pin]); fold jobs of equal identity (a
// locator spelled two ways); verify each distinct one concurrently; point the rows at the
// answers.
struct Verifier {
  static constexpr std::uint32_t kNone = UINT32_MAX;
  // A distinct record, as views into what Kept owns.
  struct Job {
    std::string_view kind, key;
    std::string_view locator_text;        // canonical
    std::string_view state_sig;           // canonical
    host::BackendProxy::VerifyItem item;  // what is sent: a state as a Json, or as its text (is_plain_json)
  };

  Context& cx;
  const VerifyOptions& opt;
  VerifyResult out;
  std::shared_ptr<Kept> kept = std::make_shared<Kept>();
  std::vector<Job> jobs;
  std::unordered_map<Sig, std::uint32_t, SigHash> by_record;
  std::unordered_map<const model::ObjectManifest*, std::uint32_t> by_manifest;  // -> its record
  std::vector<std::uint32_t> job_slot;  // per job: its answer
  std::vector<std::uint32_t> unique;    // per answer: the job verified for it

  Verifier(Context& r, const VerifyOptions& o) : cx(r), opt(o) {}

  VerifyResult run() {
    if (opt.all_history) gather_history();
    else gather_commit();
    fold_identities();
    verify_unique();
    for (auto& r : out.records)
      if (r.answer != kNone) r.answer = job_slot[r.answer];
    out.keep = kept;
    if (opt.leave_memory_to_exit) {
      struct Scratch {
        std::vector<Job> jobs;
        std::unordered_map<Sig, std::uint32_t, SigHash> by_record;
        std::unordered_map<const model::ObjectManifest*, std::uint32_t> by_manifest;
      };
      keep_until_exit(std::make_shared<const Scratch>(Scratch{std::move(jobs), std::move(by_record), std::move(by_manifest)}));
    }
    return std::move(out);
  }

  // Every commit's records from the history index; a commit the index does not hold (a
  // manifest there does not parse) is read from the VCS and parsed, failing as it always did.
  void gather_history() {
    kept->index = HistoryIndex::load(cx, opt.reading);
    const HistoryIndex& index = *kept->index;
    out.records.assign(index.manifests().size(), VerifyResult::Record{{}, kNone});  // the index's, then parsed ones
    jobs.reserve(index.manifests().size());
    by_record.reserve(index.manifests().size());
    std::size_t records = 0;
    for (const auto& c : index.commits())
      if (c.tree != HistoryIndex::kNotIndexed) records += index.tree(c.tree).size();
    out.rows.reserve(records);
    out.prefixes.reserve(index.commits().size());
    std::unordered_map<const vcs::FileMap*, std::vector<const model::ObjectManifest*>> tree_manifests;
    const std::string dir = vcs_path(cx, ".tether/objects");
    for (const auto& c : index.commits()) {
      const auto prefix = static_cast<std::uint32_t>(out.prefixes.size());
      out.prefixes.push_back(c.id.substr(0, 12) + ":");
      if (c.tree != HistoryIndex::kNotIndexed) {
        for (std::uint32_t n : index.tree(c.tree)) {
          const auto& r = index.manifests()[n];
          if (r.state.empty()) continue;
          if (r.pin_id.empty() && !r.recoverable) {  // Observed records promise nothing
            ++out.skipped_observed;
            continue;
          }
          if (out.records[n].answer == kNone) out.records[n] = {r.key, indexed_job(r)};
          out.rows.push_back({n, prefix});
        }
        continue;
      }
      auto files = cx.vcs->manifests_at(c.id, dir);
      auto [known, first] = tree_manifests.try_emplace(files.get());
      auto& ms = known->second;
      if (first) {
        kept->files.push_back(files);
        for (const auto& [rel, text] : *files) {
          auto it = kept->parsed.find(text.id());
          if (it == kept->parsed.end()) {
            vcs::FileMap one{{rel, text}};
            auto parsed_one = parse_manifest_files(one, c.id);
            std::optional<model::ObjectManifest> m;
            if (!parsed_one.empty()) m = std::move(parsed_one.begin()->second);
            it = kept->parsed.emplace(text.id(), std::move(m)).first;
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
        out.rows.push_back({manifest_record(*m, m->key), prefix});
      }
    }
  }

  // --rev's manifests, else the working tree's.
  void gather_commit() {
    auto ms = std::make_shared<const std::map<std::string, model::ObjectManifest>>(opt.rev ? manifests_at(cx, *opt.rev)
                                                                                            : cx.manifests);
    kept->commit_manifests = ms;
    out.prefixes.emplace_back();
    for (const auto& [key, m] : *ms)
      if (m.state) out.rows.push_back({manifest_record(m, key), 0});
  }

  // The job of signature `sig`; `fill` completes a new one.
  template <class Fill>
  std::uint32_t job_for(const Sig& sig, const Fill& fill) {
    auto [it, fresh] = by_record.try_emplace(sig, static_cast<std::uint32_t>(jobs.size()));
    if (fresh) {
      Job& j = jobs.emplace_back();
      j.kind = sig.kind;
      j.locator_text = sig.where;
      j.state_sig = sig.state;
      j.item.pinned = sig.pinned;
      j.item.pin_id = sig.pin_id;
      j.item.pin_ref = sig.pin_ref;
      j.item.deep = opt.deep;
      fill(j);
    }
    return it->second;
  }

  // The record of a parsed manifest (one per distinct text), labelled `key`.
  std::uint32_t manifest_record(const model::ObjectManifest& m, std::string_view key) {
    auto [it, fresh] = by_manifest.try_emplace(&m, kNone);
    if (fresh) {
      it->second = static_cast<std::uint32_t>(out.records.size());
      out.records.push_back({key, manifest_job(m)});
    }
    return it->second;
  }

  // A parsed manifest's job: its canonical texts are written once.
  std::uint32_t manifest_job(const model::ObjectManifest& m) {
    Sig sig{m.kind, kept->texts.emplace_back(support::canonical_json(m.locator)),
            kept->texts.emplace_back(support::canonical_json(*m.state)), m.pin.has_value(), {}, {}};
    if (m.pin) sig.pin_id = m.pin->id, sig.pin_ref = m.pin->ref;
    return job_for(sig, [&](Job& j) {
      j.key = m.key;
      j.item.locator = &m.locator;
      j.item.state = &*m.state;
      j.item.pin_created = m.pin && m.pin->created;
    });
  }

  // A record of the history index, whose texts are already canonical. A state that is plain
  // JSON is sent as its text; each distinct locator is parsed once.
  std::uint32_t indexed_job(const IndexedManifest& r) {
    Sig sig{r.kind, r.locator, r.state, !r.pin_id.empty(), r.pin_id, r.pin_ref};
    return job_for(sig, [&](Job& j) {
      j.key = r.key;
      // Only an index damaged on disk holds invalid JSON: verified as written, it fails.
      auto loc = kept->locators.find(r.locator);
      if (loc == kept->locators.end()) {
        Json parsed;
        try {
          parsed = Json::parse(r.locator);
        } catch (const Json::exception&) {
          parsed = std::string(r.locator);
        }
        loc = kept->locators.emplace(r.locator, std::move(parsed)).first;
      }
      j.item.locator = &loc->second;
      if (support::is_plain_json(r.state)) {
        j.item.state_text = r.state;
        return;
      }
      try {
        j.item.state = &kept->states.emplace_back(Json::parse(r.state));
      } catch (const Json::exception&) {
        j.item.state = &kept->states.emplace_back(std::string(r.state));
      }
    });
  }

  // Jobs with equal identity (a locator spelled two ways) fold together too. The identity
  // depends on the kind and locator alone, so it is asked once per distinct locator (a long
  // history names a few dozen locators in thousands of records).
  void fold_identities() {
    std::unordered_map<Sig, std::optional<std::string>, WhereHash> identities;  // [kind, locator] -> identity text
    std::unordered_map<const Json*, const std::optional<std::string>*> by_locator;  // ... by the parsed locator
    std::vector<const std::optional<std::string>*> identity(jobs.size());
    for (std::size_t n = 0; n < jobs.size(); ++n) {
      const Job& j = jobs[n];
      auto [seen, first] = by_locator.try_emplace(j.item.locator, nullptr);
      if (first) {
        const Sig where{j.kind, j.locator_text, {}, false, {}, {}};
        auto known = identities.find(where);
        if (known == identities.end()) {
          std::optional<std::string> id;
          try {
            id = support::canonical_json(cx.backend(std::string(j.kind)).identity(*j.item.locator, j.key));
          } catch (const std::exception&) {
          }
          known = identities.emplace(where, std::move(id)).first;
        }
        seen->second = &known->second;
      }
      identity[n] = seen->second;
    }
    // Usually each locator has an identity of its own: then the records folded already.
    bool distinct = true;
    std::unordered_set<Sig, WhereHash> named;
    for (const auto& [where, id] : identities)
      distinct = distinct && id && named.insert(Sig{where.kind, *id, {}, false, {}, {}}).second;
    job_slot.resize(jobs.size());
    unique.reserve(jobs.size());
    std::unordered_map<Sig, std::uint32_t, SigHash> by_identity;
    for (std::size_t n = 0; n < jobs.size(); ++n) {
      const Job& j = jobs[n];
      if (distinct || !*identity[n]) {  // (without an identity: verified, and fails, on its own)
        job_slot[n] = static_cast<std::uint32_t>(unique.size());
        unique.push_back(static_cast<std::uint32_t>(n));
        continue;
      }
      auto [it, fresh] = by_identity.try_emplace(Sig{j.kind, **identity[n], j.state_sig, j.item.pinned, j.item.pin_id, j.item.pin_ref},
                                                 static_cast<std::uint32_t>(unique.size()));
      if (fresh) unique.push_back(static_cast<std::uint32_t>(n));
      job_slot[n] = it->second;
    }
  }

  // How many concurrent batches a kind's records are split into: a backend that answers a
  // batch in one pass (describe's batch_verify) gets one per core, as each batch pays for its
  // own listing of the refs; any other (a store round trip per record) up to kMaxFanout.
  std::size_t batches_for(std::string_view kind) {
    if (!cx.backend(std::string(kind)).description().batch_verify) return kMaxFanout;
    return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxFanout);
  }

  // The distinct records, in batches: each kind's records split into batches_for(kind)
  // batches verified concurrently, each one verify_many call (a plugin without it is asked
  // once per record by the host).
  void verify_unique() {
    std::map<std::string_view, std::vector<std::size_t>> by_kind;
    for (std::size_t i = 0; i < unique.size(); ++i) by_kind[jobs[unique[i]].kind].push_back(i);
    struct Batch {
      std::string kind;
      std::vector<std::size_t> items;  // indexes into unique
    };
    std::vector<Batch> batches;
    for (auto& [kind, items] : by_kind) {
      std::size_t n = items.size(), parts = std::min(n, batches_for(kind)), start = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        std::size_t len = n / parts + (p < n % parts ? 1 : 0);
        batches.push_back({std::string(kind), std::vector<std::size_t>(items.begin() + start, items.begin() + start + len)});
        start += len;
      }
    }
    auto& answers = out.answers;
    answers.resize(unique.size());
    std::atomic<std::size_t> done{0};
    auto outcomes = fan_out<bool>(batches.size(), [&](std::size_t b) {
      const Batch& batch = batches[b];
      // The jobs' own locators, states and pins, not copies of them.
      std::vector<host::BackendProxy::VerifyItem> requests;
      requests.reserve(batch.items.size());
      for (std::size_t i : batch.items) requests.push_back(jobs[unique[i]].item);
      auto results = cx.backend(batch.kind).verify_items(requests);
      for (std::size_t k = 0; k < batch.items.size(); ++k) {
        auto& a = answers[batch.items[k]];
        if (results[k].report) {
          a.status = sdk::verify_status_name(results[k].report->status);
          a.message = std::move(results[k].report->message);
        } else {
          a.message = std::move(results[k].message);
        }
      }
      std::size_t d = done.fetch_add(batch.items.size()) + batch.items.size();
      if (opt.progress) opt.progress(d, unique.size());
      return true;
    });
    for (std::size_t b = 0; b < batches.size(); ++b)
      if (!outcomes[b].ok())
        for (std::size_t i : batches[b].items) answers[i] = {"unknown", outcomes[b].message()};
  }
};

VerifyResult verify(Repo& repo, const VerifyOptions& opt) { Context& cx = Context::of(repo); return Verifier(cx, opt).run(); }

Json VerifyResult::to_json() const {
  Json obj = Json::object();
  for (std::size_t i = 0; i < rows.size(); ++i) obj[label(i)] = {{"status", status(i)}, {"message", message(i)}};
  return obj;
}

}  // namespace tether::engine
