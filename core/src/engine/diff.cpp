// core/src/engine/diff.cpp: compare the manifests of two revisions, and with --content ask
// each system for its own diff of the two states (docs/cli.md, `tether diff`).
#include "engine/internal.hpp"
#include "tether/engine/diff.hpp"
#include "tether/engine/fanout.hpp"
#include "tether/engine/repo.hpp"
#include "tether/errors.hpp"
#include "tether/host/plugin_host.hpp"
#include "tether/host/proxy.hpp"
#include "tether/model/names.hpp"
#include "tether/vcs/vcs.hpp"

namespace tether::engine {

DiffResult diff(Repo& repo, const std::vector<std::string>& revs, bool content, const ProgressFn& progress) {
  Context& cx = Context::of(repo);
  using Manifests = std::map<std::string, model::ObjectManifest>;
  Manifests a, b;
  std::optional<std::string> rev_a, rev_b;
  if (revs.empty()) {
    if (auto head = cx.vcs->head()) {
      rev_a = *head;
      a = manifests_at(cx, *head);
    }
    b = cx.manifests;
  } else {
    rev_a = cx.vcs->resolve(revs[0]);
    a = manifests_at(cx, *rev_a);
    if (revs.size() > 1) {
      rev_b = cx.vcs->resolve(revs[1]);
      b = manifests_at(cx, *rev_b);
    } else {
      b = cx.manifests;
    }
  }

  std::vector<std::string> keys;
  for (const auto& [k, m] : a) keys.push_back(k);
  for (const auto& [k, m] : b)
    if (!a.count(k)) keys.push_back(k);
  std::sort(keys.begin(), keys.end());

  std::vector<DiffEntry> out;
  for (const auto& key : keys) {
    DiffEntry e;
    e.key = key;
    auto ia = a.find(key), ib = b.find(key);
    if (ia != a.end()) e.a = ia->second.canonical_value();
    if (ib != b.end()) e.b = ib->second.canonical_value();
    if (ib == b.end()) e.change = "removed";
    else if (ia == a.end()) e.change = "added";
    else {
      const auto& ma = ia->second;
      const auto& mb = ib->second;
      if (ma.state != mb.state) e.why.push_back("state");
      auto pid = [](const model::ObjectManifest& m) { return m.pin ? m.pin->id : std::string(); };
      if (pid(ma) != pid(mb)) e.why.push_back("pin");
      if (ma.locator != mb.locator) e.why.push_back("locator");
      if (!(ma.policy == mb.policy)) e.why.push_back("policy");
      e.change = e.why.empty() ? "unchanged" : "changed";
    }
    out.push_back(std::move(e));
  }
  if (!content) return DiffResult{std::move(out)};

  // Native diffs, concurrently, for changed states of DIFF objects of one kind.
  std::vector<std::size_t> jobs;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& e = out[i];
    if (e.change != "changed" || std::find(e.why.begin(), e.why.end(), "state") == e.why.end()) continue;
    const auto& ma = a.at(e.key);
    const auto& mb = b.at(e.key);
    if (ma.kind != mb.kind || !ma.state || !mb.state) continue;
    jobs.push_back(i);
  }
  auto results = fan_out<sdk::ObjectDiff>(
      jobs.size(),
      [&](std::size_t j) {
        const auto& e = out[jobs[j]];
        const auto& ma = a.at(e.key);
        const auto& mb = b.at(e.key);
        auto& be = cx.backend(mb.kind);
        if (!(cx.effective_capabilities(mb) & sdk::kDiff))
          throw CapabilityError(mb.kind + " backend cannot diff", e.key);
        auto listing = [&](const model::ObjectManifest& m, const std::optional<std::string>& rev) {
          auto name = model::listing_name(m.kind, be.identity(m.locator, m.key), be.content_state(*m.state));
          return read_listing(cx, name, rev);
        };
        return be.diff(mb.locator, *ma.state, *mb.state, listing(ma, rev_a), listing(mb, rev_b ? rev_b : rev_a), e.key);
      },
      progress);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    auto& e = out[jobs[j]];
    if (results[j].ok()) {
      e.detail = std::move(*results[j].value);
      continue;
    }
    e.detail_error = results[j].message();
  }
  return DiffResult{std::move(out)};
}

Json DiffEntry::to_json() const {
  return Json{{"key", key},
              {"change", change},
              {"a", a ? *a : Json(nullptr)},
              {"b", b ? *b : Json(nullptr)},
              {"detail", detail ? Json(*detail) : Json(nullptr)},
              {"detail_error", detail_error ? Json(*detail_error) : Json(nullptr)},
              {"why", why}};
}

Json DiffResult::to_json() const {
  auto arr = Json::array();
  for (const auto& e : entries) arr.push_back(e.to_json());
  return arr;
}

}  // namespace tether::engine
