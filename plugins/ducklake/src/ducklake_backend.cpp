#include "ducklake_backend.hpp"

#include <memory>
#include <optional>

#include "catalog.hpp"
#include "diff.hpp"
#include "history.hpp"
#include "lake.hpp"
#include "locator.hpp"
#include "verify.hpp"

namespace tether::ducklake {
namespace {

using sdk::BackendError;
using sdk::Json;

constexpr uint32_t kCaps =
    sdk::kFingerprint | sdk::kAddressable | sdk::kCheapFingerprint | sdk::kRetentionBound | sdk::kDiff | sdk::kHistory;

// A state's snapshot id and recorded time.
struct Recorded {
  int64_t id = 0;
  std::optional<int64_t> time_us;
};

std::optional<Recorded> recorded_of(const sdk::State& s) {
  if (!s.is_object() || !s.contains("snapshot_id")) return std::nullopt;
  auto id = parse_snapshot_id(s["snapshot_id"]);
  if (!id) return std::nullopt;
  Recorded r{*id, std::nullopt};
  if (auto t = s.find("snapshot_time_us"); t != s.end() && t->is_number_integer()) r.time_us = t->get<int64_t>();
  return r;
}

Recorded require_recorded(const sdk::State& s) {
  auto r = recorded_of(s);
  if (!r) throw BackendError("not a DuckLake state (it needs a snapshot_id): " + s.dump());
  return *r;
}

sdk::State state_of(const Snapshot& s) { return Json{{"snapshot_id", s.id}, {"snapshot_time_us", s.time_us}}; }

// One read of the catalog: the connection and its probed layout, alive for one operation.
struct Session {
  explicit Session(const Target& t) : catalog(open_catalog(t)), lake(*catalog) {}
  std::unique_ptr<Catalog> catalog;
  Lake lake;
};

Snapshot at_or_latest(Lake& lake, const Target& t) {
  if (!t.at) return lake.latest();
  auto s = lake.snapshot(*t.at);
  if (!s) throw BackendError("snapshot '" + std::to_string(*t.at) + "' is not in the catalog " + lake.display());
  return *s;
}

}  // namespace

DuckLakeBackend::DuckLakeBackend(const Json&) {}

Target DuckLakeBackend::target_of(const sdk::Locator& locator) const {
  Target t = parse_locator(locator);
  t.secrets = secrets_for(locator, {"metadata", "uri"});
  return t;
}

sdk::Description DuckLakeBackend::describe(sdk::Call&) {
  sdk::Description d;
  d.kind = "ducklake";
  d.maturity = "experimental";
  d.capabilities = kCaps;
  d.uri_keys = {"metadata", "uri"};
  d.local_path_keys = {"metadata", "uri", "data_path"};
  // Not the bare `ducklake:` prefix: the engine would turn `ducklake:postgres:<conninfo>` into
  // a path. So `ducklake:<path>` must be written absolute (validate_locator says so).
  d.local_path_prefixes = {"ducklake:sqlite:", "ducklake:duckdb:", "ducklake:"};
  d.thread_safe = true;  // one connection per operation, nothing shared
  // Data paths in object stores (verify --deep): S3 runs against Ceph in CI; Azure and GCS do not.
  d.uri_schemes = {{"s3", "stable"}, {"s3a", "stable"}, {"gs", "experimental"}, {"az", "experimental"}, {"abfss", "experimental"}};
  return d;
}

Json DuckLakeBackend::identity(sdk::Call&, const sdk::LocatorRequest& r) { return identity_of(parse_locator(r.locator)); }

void DuckLakeBackend::validate_locator(sdk::Call&, const sdk::LocatorRequest& r) {
  Target t = target_of(r.locator);
  if (redact(t.metadata) != t.metadata)
    throw BackendError("the ducklake locator carries a Postgres password, and a manifest is committed with every clone; "
                       "keep the password in .tether/secrets.toml ([objects.\"<key>\"] password = \"...\") or in a ~/.pgpass "
                       "line for the host instead");
  Session s(t);
  at_or_latest(s.lake, t);
}

bool DuckLakeBackend::state_addressable(sdk::Call&, const sdk::StateRequest& r) { return recorded_of(r.state).has_value(); }

sdk::State DuckLakeBackend::fingerprint(sdk::Call&, const sdk::FingerprintRequest& r) {
  Target t = target_of(r.locator);
  if (r.working_ref) throw BackendError("ducklake has no branches (asked for '" + *r.working_ref + "')");
  Session s(t);
  return state_of(at_or_latest(s.lake, t));
}

sdk::VerifyReport DuckLakeBackend::verify(sdk::Call&, const sdk::VerifyRequest& r) {
  Target t = target_of(r.locator);
  Recorded rec = require_recorded(r.state);
  std::unique_ptr<Catalog> catalog;
  try {
    catalog = open_catalog(t);
  } catch (const BackendError& e) {
    // A file that is gone (or replaced) took the snapshot with it; a server we cannot reach
    // says nothing about it.
    return {t.flavour == Flavour::Postgres ? sdk::VerifyStatus::Unknown : sdk::VerifyStatus::Missing, e.what()};
  }
  std::optional<Lake> lake;
  try {
    lake.emplace(*catalog);
  } catch (const VersionError& e) {
    return {sdk::VerifyStatus::Unknown, e.what()};
  } catch (const BackendError& e) {
    return {sdk::VerifyStatus::Missing, e.what()};  // the database no longer holds the catalog
  }
  // Data files in an object store are read with the object's settings, overlaid by a
  // [uris."<prefix>"] rule matching the data path itself.
  StoreOpener open_store = [this, &t](const support::objstore::Location& l) {
    Json settings = t.secrets.is_object() ? t.secrets : Json::object();
    Json by_path = secrets_for(Json{{"data_path", l.root() + "/" + l.key}}, {"data_path"});
    for (auto& [k, v] : by_path.items()) settings[k] = v;
    return support::objstore::open(l, support::objstore::options_from_settings(settings, "the ducklake settings"));
  };
  return verify_snapshot(*lake, rec.id, rec.time_us, r.deep, t.data_path, open_store);
}

Json DuckLakeBackend::open(sdk::Call&, const sdk::OpenRequest& r) {
  Target t = target_of(r.locator);
  Session s(t);
  using K = sdk::Source::Kind;
  Snapshot snap;
  std::optional<int64_t> version;  // SNAPSHOT_VERSION: only when a snapshot was asked for
  switch (r.target.kind) {
    case K::Pin:
      throw sdk::Unsupported("pin", "ducklake has no tags; snapshots are recorded only");
    case K::Ref: {
      auto id = parse_snapshot_id(Json(r.target.ref));
      if (!id) throw BackendError("ducklake has no refs; '" + r.target.ref + "' is not a snapshot id");
      auto found = s.lake.snapshot(*id);
      if (!found) throw BackendError(missing_snapshot_message(s.lake, *id));
      snap = *found, version = *id;
      break;
    }
    case K::State: {
      Recorded rec = require_recorded(r.target.state);
      auto found = s.lake.snapshot(rec.id);
      if (!found) throw BackendError(missing_snapshot_message(s.lake, rec.id));
      if (rec.time_us && *rec.time_us != found->time_us)
        throw BackendError("snapshot " + std::to_string(rec.id) + " of " + s.lake.display() +
                           " has a different commit time than recorded (catalog recreated?); not opening it");
      snap = *found, version = rec.id;
      break;
    }
    case K::Base:
      snap = at_or_latest(s.lake, t);
      if (t.at) version = snap.id;
      break;
  }
  std::string alias = alias_of(t.metadata);
  AttachOptions o;
  o.data_path = t.data_path;
  o.metadata_schema = t.metadata_schema;
  o.snapshot_id = version;
  o.read_only = true;  // tether never writes a DuckLake catalog
  Json h{{"metadata", t.metadata},
         {"alias", alias},
         {"snapshot_id", snap.id},
         {"attach_sql", attach_sql(t.metadata, alias, o)},
         {"data_path", t.data_path.empty() ? Json(nullptr) : Json(t.data_path)},
         {"table", t.table.empty() ? Json(nullptr) : Json(t.table)},
         {"read_only", true},
         {"address", redact(t.metadata) + "#snapshot=" + std::to_string(snap.id)},
         {"type", "DuckLakeHandle"},
         // What `tether open` prints: the statement a DuckDB user pastes.
         {"display", attach_sql(t.metadata, alias, o)}};
  if (!t.metadata_schema.empty()) h["metadata_schema"] = t.metadata_schema;
  if (!t.table.empty()) h["table_ref"] = alias + "." + t.table;
  return h;
}

sdk::ObjectDiff DuckLakeBackend::diff(sdk::Call&, const sdk::DiffRequest& r) {
  Target t = target_of(r.locator);
  Recorded a = require_recorded(r.a), b = require_recorded(r.b);
  Session s(t);
  // A state recorded without a time compares by id alone.
  auto snap = [&](const Recorded& x) {
    Snapshot out{x.id, 0};
    if (x.time_us) out.time_us = *x.time_us;
    else if (auto now = s.lake.snapshot(x.id)) out.time_us = now->time_us;
    return out;
  };
  return ducklake::diff(s.lake, snap(a), snap(b));
}

std::vector<sdk::HistoryEntry> DuckLakeBackend::history(sdk::Call&, const sdk::HistoryRequest& r) {
  Target t = target_of(r.locator);
  std::optional<int64_t> upto = t.at;
  if (r.ref) {
    upto = parse_snapshot_id(Json(*r.ref));
    if (!upto) throw BackendError("ducklake history starts at a snapshot id, not '" + *r.ref + "'");
  }
  Session s(t);
  return ducklake::history(s.lake, upto, r.limit);
}

}  // namespace tether::ducklake
