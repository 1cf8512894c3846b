// core/src/registry/publish.cpp: a Bundle upserted into PostgreSQL through libpq
// (docs/registry.md#publish): the statement texts, the COPY text encoding and the one
// transaction that writes it all.
//
// Large tables travel by COPY (text format): the rows of new commits straight into their
// table, the upserted tables into a temporary table followed by one INSERT ... SELECT ... ON
// CONFLICT. One stream for the data and one statement plan, where multi-row INSERTs cost a
// parse, plan and round trip per thousand rows (2-5x slower at 500,000 object rows; numbers
// in docs/PERFORMANCE.md). Small tables (refs, tether_meta, one new commit's rows) go as one
// parameterised multi-row INSERT, which saves the staging.
#include "tether/registry/publish.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_set>

#include "registry/pg_connect.hpp"
#include "tether/errors.hpp"
#include "tether/support/redact.hpp"

namespace tether::registry {

namespace {

// PostgreSQL's reserved key words (and those usable only as function or type names): a schema
// name among them must be quoted.
constexpr std::array<std::string_view, 101> kReserved = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "binary", "both",
    "case", "cast", "check", "collate", "collation", "column", "concurrently", "constraint", "create", "cross",
    "current_catalog", "current_date", "current_role", "current_schema", "current_time", "current_timestamp",
    "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch",
    "for", "foreign", "freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner",
    "intersect", "into", "is", "isnull", "join", "lateral", "leading", "left", "like", "limit", "localtime",
    "localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only", "or", "order", "outer",
    "overlaps", "placing", "primary", "references", "returning", "right", "select", "session_user", "similar",
    "some", "symmetric", "system_user", "table", "tablesample", "then", "to", "trailing", "true", "union",
    "unique", "user", "using", "variadic", "verbose", "when", "where", "window", "with"};

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

std::string column_list(const TableDef& t) {
  std::vector<std::string> cols;
  for (const auto& c : t.columns) cols.push_back(quote_identifier(c.name));
  return joined(cols);
}

std::string qualified(const std::string& schema, const std::string& name) {
  return quote_identifier(schema) + "." + quote_identifier(name);
}

// ` ON CONFLICT (pk) DO UPDATE SET c = EXCLUDED.c, ...` over the non-key columns.
std::string on_conflict(const TableDef& t) {
  std::vector<std::string> pk, sets;
  for (const auto& k : t.primary_key) pk.push_back(quote_identifier(k));
  for (const auto& c : t.columns)
    if (std::find(t.primary_key.begin(), t.primary_key.end(), c.name) == t.primary_key.end())
      sets.push_back(quote_identifier(c.name) + " = EXCLUDED." + quote_identifier(c.name));
  if (sets.empty()) return " ON CONFLICT (" + joined(pk) + ") DO NOTHING";
  return " ON CONFLICT (" + joined(pk) + ") DO UPDATE SET " + joined(sets);
}

const char* param_cast(Type t) {
  switch (t) {
    case Type::Json: return "::jsonb";
    case Type::Timestamp: return "::timestamptz";
    case Type::Bool: return "::boolean";
    case Type::Text:
    case Type::Int: return "";
  }
  return "";
}

// A statement failed: the server's message (and detail), on one line.
std::string failure(PGconn* c, const PGresult* r) {
  if (!r) return one_line(PQerrorMessage(c));
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  if (!primary) return one_line(PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r) : PQerrorMessage(c));
  std::string m = primary;
  if (const char* detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL)) m += " (" + one_line(detail) + ")";
  return m;
}

// What one publish shares: the connection, the schema, and what to name in an error.
struct Session {
  PGconn* c;
  std::string schema;
  std::string dsn;

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw TetherError("publish to PostgreSQL schema '" + schema + "' failed " + where + ": " +
                      support::redact_secrets_of(why, dsn) + "; the transaction was rolled back, nothing was written");
  }
  PgResult exec(const std::string& sql, const std::string& where) const {
    PgResult r(PQexec(c, sql.c_str()), &PQclear);
    auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(where, failure(c, r.get()));
    return r;
  }
  PgResult exec_params(const std::string& sql, const std::vector<const char*>& params, const std::string& where) const {
    PgResult r(PQexecParams(c, sql.c_str(), static_cast<int>(params.size()), nullptr, params.data(), nullptr, nullptr, 0),
             &PQclear);
    auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(where, failure(c, r.get()));
    return r;
  }
};

// BEGIN now; ROLLBACK when left without commit() (an error, or a dry run).
class Transaction {
 public:
  explicit Transaction(const Session& s) : s_(s) { s_.exec("BEGIN", "starting the transaction"); }
  ~Transaction() {
    if (open_) PQclear(PQexec(s_.c, "ROLLBACK"));
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    open_ = false;
    s_.exec("COMMIT", "committing");
  }

 private:
  const Session& s_;
  bool open_ = true;
};

std::unordered_set<std::string> published_commits(const Session& s, bool dry_run) {
  std::unordered_set<std::string> ids;
  if (dry_run) {  // no DDL ran: the table may not exist, and that means "nothing published"
    PgResult r = s.exec_params(
        "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND c.relname = 'commits'",
        {s.schema.c_str()}, "looking for the commits table");
    if (PQntuples(r.get()) == 0) return ids;
  } else {  // a concurrent publish waits for this one: the set read below stays true until COMMIT
    s.exec("LOCK TABLE " + qualified(s.schema, "commits") + " IN SHARE ROW EXCLUSIVE MODE", "locking the commits table");
  }
  PgResult r = s.exec("SELECT commit_id FROM " + qualified(s.schema, "commits"), "reading the published commits");
  const int n = PQntuples(r.get());
  ids.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    if (!PQgetisnull(r.get(), i, 0)) ids.emplace(PQgetvalue(r.get(), i, 0));
  return ids;
}

// Rows of one table to write, as indexes into the bundle's table.
struct Selection {
  const Table* table;
  std::vector<std::size_t> rows;
};

// One parameterised INSERT per batch of rows (≤ 65535 parameters, the protocol's limit).
void insert_batches(const Session& s, const Selection& sel, const std::function<void(std::size_t)>& advance) {
  const TableDef& def = sel.table->def();
  const std::size_t ncols = def.columns.size();
  const std::size_t per_batch = std::min<std::size_t>(65535 / ncols, 1000);
  const std::string where = "at table " + def.name;
  std::string full_sql;
  std::string text;  // every parameter of a batch, NUL-terminated, back to back
  std::vector<std::ptrdiff_t> offsets;
  std::vector<const char*> params;
  for (std::size_t first = 0; first < sel.rows.size(); first += per_batch) {
    const std::size_t n = std::min(per_batch, sel.rows.size() - first);
    text.clear();
    offsets.clear();
    for (std::size_t r = first; r < first + n; ++r) {
      for (const Cell& cell : sel.table->row(sel.rows[r])) {
        if (cell.is_null()) {
          offsets.push_back(-1);
          continue;
        }
        offsets.push_back(static_cast<std::ptrdiff_t>(text.size()));
        switch (cell.kind) {
          case Cell::Text: text += cell.s; break;
          case Cell::Int: text += std::to_string(cell.i); break;
          case Cell::Bool: text += cell.b ? "true" : "false"; break;
          case Cell::Null: break;
        }
        text += '\0';
      }
    }
    params.clear();
    for (auto off : offsets) params.push_back(off < 0 ? nullptr : text.data() + off);
    if (n == per_batch && full_sql.empty()) full_sql = postgres_upsert(def, s.schema, n);
    s.exec_params(n == per_batch ? full_sql : postgres_upsert(def, s.schema, n), params, where);
    advance(n);
  }
}

using Advance = std::function<void(std::size_t)>;

// COPY the rows into `target` (text format). Returns false when the server refused them with
// SQLSTATE `tolerated` (the caller rolls back to its savepoint); throws on any other failure.
bool copy_rows(const Session& s, const Selection& sel, const std::string& target, const char* tolerated,
               const Advance& advance) {
  const TableDef& def = sel.table->def();
  const std::string where = "at table " + def.name;
  PgResult started(PQexec(s.c, ("COPY " + target + " (" + column_list(def) + ") FROM STDIN").c_str()), &PQclear);
  if (!started || PQresultStatus(started.get()) != PGRES_COPY_IN) s.fail(where, failure(s.c, started.get()));
  constexpr std::size_t kChunk = 1 << 20;
  std::string buf;
  buf.reserve(kChunk + 4096);
  std::size_t pending = 0;
  bool sent = true;
  auto send = [&] {
    // The server reports bad data after the end; a refusal mid-stream shows here as -1.
    sent = PQputCopyData(s.c, buf.data(), static_cast<int>(buf.size())) == 1;
    buf.clear();
    advance(pending);
    pending = 0;
  };
  for (std::size_t r : sel.rows) {
    if (!sent) break;
    append_copy_row(buf, sel.table->row(r));
    ++pending;
    if (buf.size() >= kChunk) send();
  }
  if (sent && !buf.empty()) send();
  std::string why = sent ? "" : one_line(PQerrorMessage(s.c));
  PQputCopyEnd(s.c, sent ? nullptr : "tether: sending the rows failed");
  bool ok = sent;
  std::string state;
  while (PGresult* r = PQgetResult(s.c)) {
    const auto st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && (ok || state.empty())) {
      ok = false;
      why = failure(s.c, r);
      const char* code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
      state = code ? code : "?";
    }
    PQclear(r);
    if (st == PGRES_COPY_IN) break;  // the end did not go through: the connection is unusable
  }
  if (ok) return true;
  if (tolerated && state == tolerated) return false;
  s.fail(where, why.empty() ? one_line(PQerrorMessage(s.c)) : why);
}

// COPY into a temporary table, then one INSERT ... SELECT ... ON CONFLICT.
void copy_upsert(const Session& s, const Selection& sel, const Advance& advance) {
  const TableDef& def = sel.table->def();
  const std::string where = "at table " + def.name;
  const std::string temp = quote_identifier("tether_publish_" + def.name);
  std::vector<std::string> cols;
  for (const auto& c : def.columns) cols.push_back(quote_identifier(c.name) + " " + postgres_type(c.type));
  s.exec("CREATE TEMPORARY TABLE " + temp + " (" + joined(cols) + ") ON COMMIT DROP", where);
  copy_rows(s, sel, "pg_temp." + temp, nullptr, advance);
  s.exec(postgres_upsert_from(def, s.schema, "pg_temp." + temp), where);
}

// Rows of commits the schema does not hold cannot conflict (the commits table is locked, and
// they are written together), so they are COPYed straight into the table: half the time of the
// temporary-table path. A row someone left behind by hand does conflict: then the savepoint is
// rolled back and the rows go through the upsert after all.
void copy_new_commit_rows(const Session& s, const Selection& sel, const Advance& advance) {
  const std::string where = "at table " + sel.table->name();
  s.exec("SAVEPOINT tether_copy", where);
  if (copy_rows(s, sel, qualified(s.schema, sel.table->name()), "23505", advance)) {
    s.exec("RELEASE SAVEPOINT tether_copy", where);
    return;
  }
  s.exec("ROLLBACK TO SAVEPOINT tether_copy", where);
  copy_upsert(s, sel, [](std::size_t) {});  // the progress already counted these rows
}

}  // namespace

// ---- statement texts ----

void validate_identifier(const std::string& name) {
  bool ok = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char ch : name)
    ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_');
  if (!ok) throw ConfigError("invalid SQL identifier: '" + name + "'");
}

std::string quote_identifier(const std::string& name) {
  bool bare = !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
              std::find(kReserved.begin(), kReserved.end(), name) == kReserved.end();
  for (char ch : name) bare = bare && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
  if (bare) return name;
  std::string q = "\"";
  for (char ch : name) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

const char* postgres_type(Type t) {
  switch (t) {
    case Type::Text: return "TEXT";
    case Type::Int: return "BIGINT";
    case Type::Bool: return "BOOLEAN";
    case Type::Json: return "JSONB";
    case Type::Timestamp: return "TIMESTAMPTZ";
  }
  return "TEXT";
}

std::vector<std::string> postgres_ddl(const std::string& schema) {
  validate_identifier(schema);
  std::vector<std::string> out{"CREATE SCHEMA IF NOT EXISTS " + quote_identifier(schema)};
  for (const auto& t : tables()) {
    std::vector<std::string> parts, pk;
    for (const auto& c : t.columns) parts.push_back(quote_identifier(c.name) + " " + postgres_type(c.type));
    for (const auto& k : t.primary_key) pk.push_back(quote_identifier(k));
    parts.push_back("PRIMARY KEY (" + joined(pk) + ")");
    out.push_back("CREATE TABLE IF NOT EXISTS " + qualified(schema, t.name) + " (" + joined(parts) + ")");
  }
  for (const auto& v : views())
    out.push_back("CREATE OR REPLACE VIEW " + qualified(schema, v.name) + " AS " + v.sql(quote_identifier(schema) + "."));
  return out;
}

std::string postgres_upsert(const TableDef& t, const std::string& schema, std::size_t rows) {
  std::string sql = "INSERT INTO " + qualified(schema, t.name) + " (" + column_list(t) + ") VALUES ";
  std::size_t n = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r ? ", (" : "(";
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      sql += (c ? ", $" : "$") + std::to_string(++n) + param_cast(t.columns[c].type);
    sql += ")";
  }
  return sql + on_conflict(t);
}

std::string postgres_upsert_from(const TableDef& t, const std::string& schema, const std::string& source) {
  const std::string cols = column_list(t);
  return "INSERT INTO " + qualified(schema, t.name) + " (" + cols + ") SELECT " + cols + " FROM " + source +
         on_conflict(t);
}

void append_copy_row(std::string& out, std::span<const Cell> row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) out += '\t';
    const Cell& cell = row[i];
    switch (cell.kind) {
      case Cell::Null: out += "\\N"; break;
      case Cell::Int: out += std::to_string(cell.i); break;
      case Cell::Bool: out += cell.b ? 't' : 'f'; break;
      case Cell::Text:
        for (char ch : cell.s) {
          switch (ch) {
            case '\\': out += "\\\\"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            default: out += ch;
          }
        }
        break;
    }
  }
  out += '\n';
}

// ---- publish ----

std::size_t PublishReport::total() const {
  std::size_t n = 0;
  for (const auto& [table, count] : upserted) n += count;
  return n;
}

namespace {

// One element of a PostgreSQL array literal: quoted, `"` and `\` escaped; NULL for nullopt.
void append_array_element(std::string& out, const std::string* text) {
  if (out.size() > 1) out += ',';
  if (!text) {
    out += "NULL";
    return;
  }
  out += '"';
  for (char ch : *text) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  out += '"';
}

}  // namespace

struct Publication::Impl {
  PublishOptions options;
  PgConn conn;
  Session s;
  std::optional<Transaction> tx;
  std::unordered_set<std::string> known;
  bool written = false;

  explicit Impl(const PublishOptions& o)
      : options(o), conn(connect_postgres(o.dsn, "tether-publish")), s{conn.get(), o.schema, o.dsn} {
    // Temporary tables (the COPY staging) stay in memory up to this size instead of spilling.
    s.exec("SET TimeZone TO 'UTC'; SET temp_buffers TO '128MB'", "setting up the session");
    tx.emplace(s);
    if (!o.dry_run)
      for (const auto& sql : postgres_ddl(o.schema)) s.exec(sql, "creating the tables");
    known = published_commits(s, o.dry_run);
  }
};

Publication::Publication(const PublishOptions& options) {
  validate_identifier(options.schema);
  if (options.dsn.empty()) throw ConfigError("a Postgres DSN is required to publish");
  impl_ = std::make_unique<Impl>(options);
}

Publication::~Publication() = default;

const std::unordered_set<std::string>& Publication::known() const { return impl_->known; }

namespace {

// Per key: (commit, pin) of the rows of `table` matching it by kind, identity_hash and
// state_hash, columns `commit_column` and pin_id. Three parallel arrays, one round trip.
std::vector<std::vector<StateRecord>> records_of(const Session& s, const std::unordered_set<std::string>& known,
                                                 const std::vector<StateKey>& keys, const char* table,
                                                 const char* commit_column) {
  std::vector<std::vector<StateRecord>> out(keys.size());
  if (keys.empty() || known.empty()) return out;  // no commit published: no state either
  std::string kinds = "{", ids = "{", hashes = "{";
  for (const auto& k : keys) {
    append_array_element(kinds, &k.kind);
    append_array_element(ids, k.identity_hash.empty() ? nullptr : &k.identity_hash);
    append_array_element(hashes, &k.state_hash);
  }
  kinds += '}', ids += '}', hashes += '}';
  PgResult r = s.exec_params(std::string("SELECT k.i, o.") + commit_column +
                                 ", o.pin_id FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY "
                                 "AS k(kind, identity_hash, state_hash, i) JOIN " +
                                 qualified(s.schema, table) +
                                 " o ON o.kind = k.kind AND o.identity_hash = k.identity_hash AND o.state_hash = k.state_hash",
                             {kinds.c_str(), ids.c_str(), hashes.c_str()}, std::string("reading the stored ") + table);
  const int n = PQntuples(r.get());
  for (int row = 0; row < n; ++row) {
    // The server's bytes: an ordinal out of range or a null commit is skipped, never trusted.
    long long i = std::atoll(PQgetvalue(r.get(), row, 0));
    if (i < 1 || static_cast<std::size_t>(i) > keys.size() || PQgetisnull(r.get(), row, 1)) continue;
    StateRecord rec{PQgetvalue(r.get(), row, 1), std::nullopt};
    if (!PQgetisnull(r.get(), row, 2)) rec.pin_id = PQgetvalue(r.get(), row, 2);
    out[static_cast<std::size_t>(i - 1)].push_back(std::move(rec));
  }
  return out;
}

}  // namespace

std::vector<std::vector<StateRecord>> Publication::first_records(const std::vector<StateKey>& keys) {
  return records_of(impl_->s, impl_->known, keys, "object_states", "first_commit_id");
}

std::vector<std::vector<StateRecord>> Publication::all_records(const std::vector<StateKey>& keys) {
  return records_of(impl_->s, impl_->known, keys, "objects", "commit_id");
}

PublishReport publish(const Bundle& bundle, const PublishOptions& options) {
  return Publication(options).write(bundle);
}

PublishReport Publication::write(const Bundle& bundle) {
  if (impl_->written) throw std::logic_error("Publication::write called twice");
  impl_->written = true;
  const PublishOptions& options = impl_->options;
  const Session& s = impl_->s;
  const auto& known = impl_->known;
  PublishReport report;
  report.schema = options.schema;
  report.dry_run = options.dry_run;
  report.skipped_commits = bundle.omitted_commits;

  std::vector<Selection> selections;
  std::size_t total = 0;
  for (const Table& t : bundle.all()) {
    Selection sel{&t, {}};
    sel.rows.reserve(t.rows());
    const bool keyed = t.def().group == Group::CommitKeyed && !known.empty();
    const std::size_t id_col = t.def().group == Group::CommitKeyed ? t.def().column_index("commit_id") : 0;
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (keyed) {
        const Cell& id = t.at(r, id_col);
        if (!id.is_null() && known.count(std::string(id.s))) {
          if (t.name() == "commits") ++report.skipped_commits;
          continue;
        }
      }
      sel.rows.push_back(r);
    }
    report.upserted.emplace_back(t.name(), sel.rows.size());
    total += sel.rows.size();
    selections.push_back(std::move(sel));
  }
  if (options.dry_run) return report;  // ~Transaction rolls back

  std::size_t done = 0;
  auto advance = [&](std::size_t n) {
    done += n;
    if (options.progress) options.progress(done, total);
  };
  for (const Selection& sel : selections) {
    const TableDef& def = sel.table->def();
    if (def.group == Group::Replaced) s.exec("DELETE FROM " + qualified(options.schema, def.name), "at table " + def.name);
    if (sel.rows.empty()) continue;
    if (sel.rows.size() < options.copy_threshold) insert_batches(s, sel, advance);
    else if (def.group == Group::CommitKeyed) copy_new_commit_rows(s, sel, advance);
    else copy_upsert(s, sel, advance);
  }
  impl_->tx->commit();
  return report;
}

}  // namespace tether::registry
