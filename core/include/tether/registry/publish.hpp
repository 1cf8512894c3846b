// tether/registry/publish.hpp: `tether publish`, a Bundle upserted into a PostgreSQL schema
// through libpq (docs/registry.md#publish). Experimental, like the rest of the registry layer.
//
// Contract: one transaction. Commit-keyed tables (commits, commit_parents, objects) skip the
// commits the schema already holds (their rows are immutable facts and never deleted);
// refs, workspace and tether_meta are emptied and rewritten; object_states, listings and
// listing_entries are upserted in full. Running it twice writes no commit row the second
// time. Any failure rolls the whole transaction back: the schema is left as it was.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tether/registry/registry.hpp"

namespace tether::registry {

struct PublishOptions {
  // A libpq connection string (`host=... dbname=...` or `postgresql://...`). Never printed:
  // errors name its host and port only, with any password redacted.
  std::string dsn;
  std::string schema = "tether";
  bool dry_run = false;  // no DDL, no write; a missing schema reads as "no commit published"
  // Tables with at least this many rows to write travel by COPY into a temporary table and one
  // INSERT ... SELECT; smaller ones by multi-row parameterised INSERTs (fewer round trips).
  std::size_t copy_threshold = 512;
  // Rows written so far over all tables (called between batches; not in a dry run).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct PublishReport {
  std::string schema;
  // table -> rows written (or, in a dry run, that would be), all nine tables in table order.
  std::vector<std::pair<std::string, std::size_t>> upserted;
  std::size_t skipped_commits = 0;  // bundle commits the schema already held
  bool dry_run = false;
  std::size_t total() const;
};

// One publish in steps, so the caller can read what the schema holds before it builds the
// bundle (an incremental walk: engine/publish.cpp). The constructor connects, begins the one
// transaction, creates the tables (not in a dry run) and reads the published commit ids
// under a lock that holds them true until write() commits. Destroyed without write(), or
// after a failure, it rolls back. Errors as publish() below.
class Publication {
 public:
  explicit Publication(const PublishOptions& options);
  ~Publication();
  Publication(const Publication&) = delete;
  Publication& operator=(const Publication&) = delete;

  // Commit ids the schema holds. They are the schema's bytes: trust them only to name rows
  // already written, never to stand for other commits.
  const std::unordered_set<std::string>& known() const;
  // Per key, in key order: the first commit and pin of its stored object_states row (none
  // when there is no row), one primary-key probe each.
  std::vector<std::vector<StateRecord>> first_records(const std::vector<StateKey>& keys);
  // Per key: every stored `objects` row recording it (commit and pin). A scan of the objects
  // table: for the few states whose stored first commit the walk does not have.
  std::vector<std::vector<StateRecord>> all_records(const std::vector<StateKey>& keys);
  // Writes `bundle` (rows of known commits skipped; its omitted_commits count as skipped)
  // and commits. Once.
  PublishReport write(const Bundle& bundle);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Publishes `bundle`: Publication(options).write(bundle). Throws ConfigError for a bad schema
// name or a malformed DSN, TetherError for a connection failure (`cannot connect to
// PostgreSQL (host H port P): ...`) or a failed statement (naming the table; the transaction
// is rolled back first).
PublishReport publish(const Bundle& bundle, const PublishOptions& options);

// ---- the statement texts (exposed for tests) ----

// Refuses a schema name that is empty, starts with a digit, or holds anything but ASCII
// letters, digits and `_`: ConfigError `invalid SQL identifier: '<name>'`.
void validate_identifier(const std::string& name);
// `"name"`, with embedded quotes doubled (names are validated anyway; this is the second fence).
std::string quote_identifier(const std::string& name);
const char* postgres_type(Type t);  // TEXT | BIGINT | BOOLEAN | JSONB | TIMESTAMPTZ

// CREATE SCHEMA IF NOT EXISTS, CREATE TABLE IF NOT EXISTS per table, CREATE OR REPLACE VIEW
// per view, in that order.
std::vector<std::string> postgres_ddl(const std::string& schema);
// `INSERT INTO s.t (cols) VALUES ($1, $2::jsonb, ...), (...) ON CONFLICT (pk) DO UPDATE SET
// c = EXCLUDED.c, ...` for `rows` rows; parameters are text, cast per logical type.
std::string postgres_upsert(const TableDef& table, const std::string& schema, std::size_t rows = 1);
// `INSERT INTO s.t (cols) SELECT cols FROM <source> ON CONFLICT ...`: the step after a COPY.
std::string postgres_upsert_from(const TableDef& table, const std::string& schema, const std::string& source);

// One row in COPY text format: tab-separated, `\N` for null, `\\`, `\t`, `\n`, `\r` escaped,
// bools as t/f; appended to `out` with its newline.
void append_copy_row(std::string& out, std::span<const Cell> row);

}  // namespace tether::registry
