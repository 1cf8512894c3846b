// conformance/memory/backend.hpp: the in-memory reference backend (docs/backends.md#memory).
// Every capability; the executable specification the conformance suite is checked against.
// Every operation runs under the store lock (store.hpp), so the `expected` check and the ref
// move it guards are one atomic step (CONDITIONAL_REF).
//
// Where the store lives: the `store` key of the secrets/config defaults (configure), else the
// `store` key of the create() config, else $TETHER_MEMORY_STORE, else this process only.
//
// A class template over the final class (the SDK's CRTP), so the deliberately broken plugins
// of conformance/broken/ can be the reference with one operation changed.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "store.hpp"
#include "tether/sdk/backend.hpp"

namespace tether::memory {

namespace sdk = tether::sdk;
using sdk::Call;
using sdk::Expected;
using sdk::Source;

inline constexpr uint32_t kCapabilities = sdk::kFingerprint | sdk::kAddressable | sdk::kPin | sdk::kFork |
                                          sdk::kCheapFingerprint | sdk::kAtomicRef | sdk::kDiff | sdk::kHistory |
                                          sdk::kPromote | sdk::kMerge | sdk::kCreate | sdk::kConditionalRef;

inline std::string system_name(const Json& locator) {
  for (const char* k : {"system", "uri"})
    if (locator.contains(k) && locator[k].is_string() && !locator[k].get<std::string>().empty())
      return locator[k].get<std::string>();
  throw sdk::BackendError("memory locator needs 'system'");
}

inline std::string base_of(const Json& locator) {
  std::string b = sdk::get_string(locator, "branch");
  return b.empty() ? "main" : b;
}

inline std::optional<std::string> at_of(const Json& locator) {
  auto at = sdk::get_opt_string(locator, "at");
  if (at && at->empty()) return std::nullopt;
  return at;
}

inline Json snapshot_state(const std::string& id) { return Json{{"snapshot_id", id}}; }

inline std::string snapshot_of(const Json& state) {
  if (!state.is_object() || !state.contains("snapshot_id") || !state["snapshot_id"].is_string())
    throw sdk::InvalidArgument("memory state needs 'snapshot_id'");
  return state["snapshot_id"].get<std::string>();
}

inline std::string printable(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

template <class Derived>
class MemoryBackendBase : public sdk::Backend<Derived> {
 public:
  explicit MemoryBackendBase(const Json& config) { config_store_ = sdk::get_string(config, "store"); }

  sdk::Description describe(Call&) {
    sdk::Description d;
    d.kind = "memory";
    d.capabilities = kCapabilities;
    d.uri_keys = {"system", "uri"};
    d.safe_config_keys = {"store"};
    d.promote_hint = "move the branch with the memory store's own tools";
    d.thread_safe = true;
    return d;
  }

  Json identity(Call&, const sdk::LocatorRequest& r) { return Json{{"system", system_name(r.locator)}}; }

  sdk::State fingerprint(Call&, const sdk::FingerprintRequest& r) {
    std::string name = system_name(r.locator), id;
    read(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      if (r.working_ref) id = Store::resolve(sys, name, *r.working_ref);
      else if (auto at = at_of(r.locator)) id = Store::resolve(sys, name, *at);
      else id = Store::resolve(sys, name, base_of(r.locator));
    });
    return snapshot_state(id);
  }

  sdk::VerifyReport verify(Call&, const sdk::VerifyRequest& r) {
    system_name(r.locator);  // verify_in's checks, before the store is read
    snapshot_of(r.state);
    sdk::VerifyReport rep;
    read(r.locator, [&](Store& st) { rep = verify_in(st, r); });
    return rep;
  }

  // The reference batch: every item checked as verify checks it, the items of one store
  // under one read of it.
  std::vector<sdk::VerifyOutcome> verify_many(Call&, const sdk::VerifyManyRequest& r) {
    std::vector<sdk::VerifyOutcome> out(r.items.size());
    std::map<std::string, std::vector<size_t>> by_store;
    for (size_t i = 0; i < r.items.size(); ++i) {
      try {
        system_name(r.items[i].locator);
        snapshot_of(r.items[i].state);
        by_store[store_path(r.items[i].locator)].push_back(i);
      } catch (...) {
        out[i] = sdk::failed_outcome(std::current_exception());
      }
    }
    for (const auto& store : by_store) {
      const std::vector<size_t>& items = store.second;  // a plain name: lambdas may capture it
      try {
        read(r.items[items.front()].locator, [&](Store& st) {
          for (size_t i : items) {
            try {
              out[i] = sdk::VerifyOutcome::of(verify_in(st, r.items[i]));
            } catch (...) {
              out[i] = sdk::failed_outcome(std::current_exception());
            }
          }
        });
      } catch (...) {
        auto failed = sdk::failed_outcome(std::current_exception());
        for (size_t i : items) out[i] = failed;
      }
    }
    return out;
  }

  sdk::Pin pin(Call&, const sdk::PinRequest& r) {
    std::string name = system_name(r.locator), snap = snapshot_of(r.state);
    sdk::Pin p{r.pin_id, "tether." + r.pin_id, true};
    modify(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      if (!sys.snapshots.count(snap)) throw sdk::BackendError("snapshot " + snap + " no longer exists");
      auto t = sys.tags.find(p.ref);
      if (t != sys.tags.end()) {
        if (t->second != snap) throw sdk::BackendError("pin " + p.ref + " already points elsewhere (" + t->second + ")");
        p.created = false;
        return;
      }
      sys.tags[p.ref] = snap;
    });
    return p;
  }

  void unpin(Call&, const sdk::UnpinRequest& r) {
    std::string name = system_name(r.locator);
    modify(r.locator, [&](Store& st) { st.system(name).tags.erase(r.pin.ref); });
  }

  std::vector<std::string> list_pins(Call&, const sdk::LocatorRequest& r) {
    std::string name = system_name(r.locator);
    std::vector<std::string> out;
    read(r.locator, [&](Store& st) {
      for (const auto& [tag, snap] : st.system(name).tags)
        if (tag.rfind("tether.", 0) == 0) out.push_back(tag.substr(7));
    });
    return out;
  }

  std::string fork(Call&, const sdk::ForkRequest& r) {
    std::string name = system_name(r.locator);
    modify(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      std::string snap = source_snapshot(sys, name, r.locator, r.source);
      check_expected(sys, r.name, r.expected, "fork");
      sys.branches[r.name] = snap;
    });
    return r.name;
  }

  void delete_working_ref(Call&, const sdk::RefRequest& r) {
    std::string name = system_name(r.locator);
    if (r.ref == "main" || r.ref == base_of(r.locator)) throw sdk::BackendError("will not delete the base branch " + r.ref);
    modify(r.locator, [&](Store& st) { st.system(name).branches.erase(r.ref); });
  }

  std::vector<std::string> list_working_refs(Call&, const sdk::LocatorRequest& r) {
    std::string name = system_name(r.locator);
    std::vector<std::string> out;
    read(r.locator, [&](Store& st) {
      for (const auto& [branch, snap] : st.system(name).branches)
        if (branch.rfind("tether.ws.", 0) == 0) out.push_back(branch);
    });
    return out;
  }

  Json open(Call&, const sdk::OpenRequest& r) {
    std::string name = system_name(r.locator), ref;
    switch (r.target.kind) {
      case Source::Kind::Pin: ref = r.target.pin.ref; break;
      case Source::Kind::State: ref = snapshot_of(r.target.state); break;
      case Source::Kind::Ref: ref = r.target.ref; break;
      case Source::Kind::Base: ref = base_of(r.locator); break;
    }
    std::string snap;
    read(r.locator, [&](Store& st) { snap = Store::resolve(st.system(name), name, ref); });
    return Json{{"address", "memory://" + name + "/" + ref}, {"system", name}, {"ref", ref},
                {"snapshot_id", snap}, {"read_only", r.read_only}};
  }

  sdk::ObjectDiff diff(Call&, const sdk::DiffRequest& r) {
    std::string name = system_name(r.locator), a = snapshot_of(r.a), b = snapshot_of(r.b);
    Json pa, pb;
    read(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      pa = payload(sys, a);
      pb = payload(sys, b);
    });
    sdk::ObjectDiff d;
    d.unit = "keys";
    std::set<std::string> keys;
    for (const auto& [k, v] : pa.items()) keys.insert(k);
    for (const auto& [k, v] : pb.items()) keys.insert(k);
    for (const auto& k : keys) {
      bool in_a = pa.contains(k), in_b = pb.contains(k);
      if (!in_a) d.add(k, "added", printable(pb[k]));
      else if (!in_b) d.add(k, "removed", printable(pa[k]));
      else if (pa[k] != pb[k]) d.add(k, "modified", printable(pa[k]) + " -> " + printable(pb[k]));
    }
    return d;
  }

  std::vector<sdk::HistoryEntry> history(Call&, const sdk::HistoryRequest& r) {
    std::string name = system_name(r.locator);
    std::vector<sdk::HistoryEntry> out;
    read(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      std::string start = r.ref ? *r.ref : at_of(r.locator).value_or(base_of(r.locator));
      std::string head = Store::resolve(sys, name, start);
      for (const auto& id : Store::ancestors(sys, head)) {
        if (r.limit >= 0 && static_cast<int64_t>(out.size()) >= r.limit) break;
        sdk::HistoryEntry e;
        e.id = id;
        e.message = "snapshot " + id;
        for (const auto& [b, s] : sys.branches) if (s == id) e.refs.push_back(b);
        for (const auto& [t, s] : sys.tags) if (s == id) e.refs.push_back(t);
        std::sort(e.refs.begin(), e.refs.end());
        out.push_back(std::move(e));
      }
    });
    return out;
  }

  sdk::State promote(Call&, const sdk::PromoteRequest& r) {
    std::string name = system_name(r.locator), base = base_of(r.locator), result;
    modify(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      check_expected(sys, base, r.expected, "promote");
      std::string head = Store::resolve(sys, name, base);
      std::string target = source_snapshot(sys, name, r.locator, r.source);
      if (target == head) { result = head; return; }
      if (!is_ancestor(sys, head, target))
        throw sdk::BackendError(base + " moved to " + head + ", which is not an ancestor of " + target);
      sys.branches[base] = target;
      result = target;
    });
    return snapshot_state(result);
  }

  sdk::State merge(Call&, const sdk::MergeRequest& r) {
    std::string name = system_name(r.locator), base = base_of(r.locator), result;
    modify(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      check_expected(sys, base, r.expected, "merge");
      std::string head = Store::resolve(sys, name, base);
      std::string src = source_snapshot(sys, name, r.locator, r.source);
      if (src == head || is_ancestor(sys, src, head)) { result = head; return; }
      if (is_ancestor(sys, head, src)) {
        sys.branches[base] = src;
        result = src;
        return;
      }
      auto theirs_anc = Store::ancestors(sys, src);
      std::set<std::string> theirs_set(theirs_anc.begin(), theirs_anc.end());
      std::string common;
      for (const auto& id : Store::ancestors(sys, head))
        if (theirs_set.count(id)) { common = id; break; }
      Json ours = payload(sys, head), theirs = payload(sys, src);
      Json anc = common.empty() ? Json::object() : payload(sys, common);
      std::set<std::string> keys;
      for (const Json* p : {&ours, &theirs, &anc})
        for (const auto& [k, v] : p->items()) keys.insert(k);
      Json merged = Json::object();
      std::vector<std::string> conflicts;
      auto get = [](const Json& p, const std::string& k) { return p.contains(k) ? std::optional<Json>(p[k]) : std::nullopt; };
      for (const auto& k : keys) {
        auto o = get(ours, k), t = get(theirs, k), a = get(anc, k);
        if (o == t) { if (o) merged[k] = *o; }
        else if (o == a) { if (t) merged[k] = *t; }
        else if (t == a) { if (o) merged[k] = *o; }
        else conflicts.push_back(k);
      }
      if (!conflicts.empty())
        throw sdk::MergeConflict(std::to_string(conflicts.size()) + " key(s) changed on both " + base + " and " + src,
                                 conflicts);
      result = Store::write(sys, name, base, std::move(merged), {src});
    });
    return snapshot_state(result);
  }

  std::optional<bool> ancestor_of(Call&, const sdk::AncestorRequest& r) {
    std::string name = system_name(r.locator), anc = snapshot_of(r.ancestor);
    bool out = false;
    read(r.locator, [&](Store& st) {
      System& sys = st.system(name);
      out = is_ancestor(sys, anc, source_snapshot(sys, name, r.locator, r.descendant));
    });
    return out;
  }

  sdk::State create(Call&, const sdk::CreateRequest& r) {
    std::string name = system_name(r.locator), id;
    modify(r.locator, [&](Store& st) {
      if (st.find(name)) throw sdk::BackendError("memory system " + name + " already exists");
      st.materialize(name);
      System& sys = st.system(name);
      sys.owner = r.owner;
      id = Store::resolve(sys, name, base_of(r.locator));
    });
    return snapshot_state(id);
  }

  std::optional<std::string> owner(Call&, const sdk::LocatorRequest& r) {
    std::string name = system_name(r.locator);
    std::optional<std::string> out;
    read(r.locator, [&](Store& st) {
      if (System* sys = st.find(name)) out = sys->owner;
    });
    return out;
  }

  std::optional<bool> is_ref_empty(Call&, const sdk::IsRefEmptyRequest& r) {
    std::string name = system_name(r.locator), base = base_of(r.locator);
    std::optional<bool> out;
    std::set<std::string> ignoring(r.ignoring.begin(), r.ignoring.end());
    read(r.locator, [&](Store& st) {
      System* sys = st.find(name);
      if (!sys) return;
      bool empty = true;
      for (const auto& [b, s] : sys->branches)
        if (b != base && !ignoring.count(b)) empty = false;
      for (const auto& [t, s] : sys->tags)
        if (!ignoring.count(t)) empty = false;
      auto head = sys->branches.find(base);
      if (head == sys->branches.end() || head->second != name + ":s0") empty = false;
      out = empty;
    });
    return out;
  }

  void delete_store(Call&, const sdk::LocatorRequest& r) {
    std::string name = system_name(r.locator);
    modify(r.locator, [&](Store& st) { st.remove(name); });
  }

 protected:
  // The store file for this locator (see the file comment); "" = process-local.
  std::string store_path(const Json& locator) const {
    std::string p;
    Json opts = this->secrets_for(locator, {"system", "uri"});
    if (opts.contains("store") && opts["store"].is_string()) p = opts["store"].get<std::string>();
    if (p.empty()) p = config_store_;
    if (p.empty())
      if (const char* env = std::getenv("TETHER_MEMORY_STORE")) p = env;
    if (!p.empty() && std::filesystem::path(p).is_relative() && !this->configuration().checkout.empty())
      p = (std::filesystem::path(this->configuration().checkout) / p).string();
    return p;
  }

  template <class F>
  void access(const Json& locator, bool write, F&& fn) {
    try {
      with_store(store_path(locator), write, fn);
    } catch (const StoreError& e) {
      throw sdk::BackendError(e.what());
    }
  }
  template <class F> void read(const Json& locator, F&& fn) { access(locator, false, std::forward<F>(fn)); }
  template <class F> void modify(const Json& locator, F&& fn) { access(locator, true, std::forward<F>(fn)); }

  static sdk::VerifyReport verify_in(Store& st, const sdk::VerifyRequest& r) {
    std::string name = system_name(r.locator), want = snapshot_of(r.state);
    System& sys = st.system(name);
    if (r.pin) {
      auto t = sys.tags.find(r.pin->ref);
      if (t == sys.tags.end()) return {sdk::VerifyStatus::Missing, "pin " + r.pin->ref + " is gone"};
      if (t->second != want) return {sdk::VerifyStatus::Drifted, "pin " + r.pin->ref + " points at " + t->second};
      return {sdk::VerifyStatus::Ok, ""};
    }
    if (sys.snapshots.count(want)) return {sdk::VerifyStatus::Ok, ""};
    return {sdk::VerifyStatus::Missing, "snapshot " + want + " no longer exists"};
  }

  static Json payload(const System& sys, const std::string& snap) {
    auto it = sys.snapshots.find(snap);
    if (it == sys.snapshots.end()) throw sdk::BackendError("snapshot " + snap + " no longer exists");
    return it->second;
  }

  static bool is_ancestor(const System& sys, const std::string& anc, const std::string& desc) {
    auto all = Store::ancestors(sys, desc);
    return std::find(all.begin(), all.end(), anc) != all.end();
  }

  static std::string source_snapshot(const System& sys, const std::string& name, const Json& locator, const Source& s) {
    switch (s.kind) {
      case Source::Kind::Pin: {
        auto t = sys.tags.find(s.pin.ref);
        if (t == sys.tags.end()) throw sdk::BackendError("pin " + s.pin.ref + " missing");
        return t->second;
      }
      case Source::Kind::State: {
        std::string snap = snapshot_of(s.state);
        if (!sys.snapshots.count(snap)) throw sdk::BackendError("snapshot " + snap + " gone");
        return snap;
      }
      case Source::Kind::Ref: return Store::resolve(sys, name, s.ref);
      case Source::Kind::Base: break;
    }
    return Store::resolve(sys, name, base_of(locator));
  }

  // The head check of a conditional move; the caller holds the store lock until it moves.
  static void check_expected(const System& sys, const std::string& branch, const Expected& e, const char* what) {
    if (!e.given()) return;
    auto it = sys.branches.find(branch);
    Json actual = it == sys.branches.end() ? Json() : snapshot_state(it->second);
    if (e.kind == Expected::Kind::Absent) {
      if (it != sys.branches.end())
        throw sdk::RefMoved(std::string(what) + ": " + branch + " exists (at " + it->second + "), expected absent", branch,
                            Json::object(), actual);
      return;
    }
    std::string want = e.state.value("snapshot_id", std::string());
    if (it == sys.branches.end())
      throw sdk::RefMoved(std::string(what) + ": " + branch + " is gone, expected " + want, branch, e.state, actual);
    if (it->second != want)
      throw sdk::RefMoved(std::string(what) + ": " + branch + " is at " + it->second + ", expected " + want, branch, e.state,
                          actual);
  }

  std::string config_store_;
};

}  // namespace tether::memory
