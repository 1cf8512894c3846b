// The Postgres catalog through libpq: the session in UTC with ISO dates (so timestamptz
// prints as DuckDB prints it), the catalog schema first on the search path when the
// locator names one, and every read in one REPEATABLE READ READ ONLY transaction. Messages
// name the catalog without its password and never quote the conninfo.
#include <libpq-fe.h>

#include "catalog.hpp"
#include "pg_credentials.hpp"
#include "tether/sdk/error.hpp"

namespace tether::ducklake {
namespace {

// libpq's message, first line only (the rest is hints and context).
std::string first_line(const char* msg) {
  std::string s = msg ? msg : "";
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s.empty() ? "unknown error" : s;
}

// `?` placeholders (outside quotes) become $1, $2, ...
std::string numbered(std::string_view sql) {
  std::string out;
  int n = 0;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += "$" + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

class Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  ~Result() { PQclear(r_); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  PGresult* get() const { return r_; }

 private:
  PGresult* r_;
};

class PgCatalog final : public Catalog {
 public:
  PgCatalog(const std::string& conninfo, const sdk::Json& secrets, const std::string& schema, std::string display)
      : display_(std::move(display)), schema_(schema) {
    // The manifest's conninfo, with this machine's credentials only where the user named the
    // host (pg_credentials.hpp), as explicit keywords that libpq never parses again.
    PgConnectPlan plan = plan_connection(conninfo, secrets, current_environment());
    bool timeout = false;
    for (const auto& [k, v] : plan.params) timeout = timeout || k == "connect_timeout";
    if (!timeout) plan.params.emplace_back("connect_timeout", "15");
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : plan.params) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    conn_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/0);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      std::string why = first_line(conn_ ? PQerrorMessage(conn_) : "out of memory");
      const bool asked = conn_ && plan.placeholder_password && PQconnectionUsedPassword(conn_);
      PQfinish(conn_);
      conn_ = nullptr;
      if (asked)
        throw sdk::BackendError("cannot connect to the DuckLake catalog " + display_ + ": the server at " + plan.hosts +
                                " asks for a password, and tether gives the environment's PostgreSQL credentials "
                                "($PGPASSWORD, $PGPASSFILE, $PGSERVICE, client certificates) only to hosts you named; "
                                "add a ~/.pgpass line for " + plan.hosts + ", or name it in .tether/secrets.toml "
                                "([objects.\"<key>\"] hosts = [\"" + plan.hosts + "\"] or password = \"...\")");
      throw sdk::BackendError("cannot connect to the DuckLake catalog " + display_ + ": " + why);
    }
    // Server notices would go to stderr, which is the host's.
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
    try {
      command("SET TimeZone = 'UTC'");
      command("SET DateStyle = 'ISO, YMD'");
      if (!schema_.empty()) command("SET search_path TO " + quote_ident(schema_));
      command("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      if (schema_.empty()) {
        Rows r = query("SELECT current_schema()", {});
        schema_ = !r.empty() && r[0][0] ? *r[0][0] : "public";
      }
    } catch (...) {
      PQfinish(conn_);
      conn_ = nullptr;
      throw;
    }
  }
  ~PgCatalog() override {
    if (!conn_) return;
    Result r(PQexec(conn_, "ROLLBACK"));  // nothing was written
    PQfinish(conn_);
  }
  PgCatalog(const PgCatalog&) = delete;
  PgCatalog& operator=(const PgCatalog&) = delete;

  Rows query(std::string_view sql, const std::vector<int64_t>& params) override {
    std::vector<std::string> text;
    for (int64_t p : params) text.push_back(std::to_string(p));
    std::vector<const char*> values;
    for (const auto& t : text) values.push_back(t.c_str());
    return run(numbered(sql), values);
  }

  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    for (auto& r : run("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", {schema_.c_str()}))
      if (r[0]) out.push_back(*r[0]);
    return out;
  }

  std::vector<std::string> columns(const std::string& table) override {
    std::vector<std::string> out;
    for (auto& r : run("SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 "
                       "ORDER BY ordinal_position",
                       {schema_.c_str(), table.c_str()}))
      if (r[0]) out.push_back(*r[0]);
    return out;
  }

  const std::string& display() const override { return display_; }

 private:
  void command(const std::string& sql) {
    Result r(PQexec(conn_, sql.c_str()));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(r.get());
  }

  Rows run(const std::string& sql, const std::vector<const char*>& values) {
    Result r(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr, nullptr, 0));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) fail(r.get());
    Rows rows;
    int n = PQntuples(r.get()), m = PQnfields(r.get());
    rows.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      Row row(static_cast<std::size_t>(m));
      for (int c = 0; c < m; ++c)
        if (!PQgetisnull(r.get(), i, c))
          row[static_cast<std::size_t>(c)] = std::string(PQgetvalue(r.get(), i, c), static_cast<std::size_t>(PQgetlength(r.get(), i, c)));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  [[noreturn]] void fail(PGresult* r) {
    const char* msg = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_);
    throw sdk::BackendError("reading the DuckLake catalog " + display_ + " failed: " + first_line(msg));
  }

  PGconn* conn_ = nullptr;
  std::string display_;
  std::string schema_;
};

}  // namespace

std::unique_ptr<Catalog> open_postgres(const std::string& conninfo, const sdk::Json& secrets, const std::string& schema,
                                       const std::string& display) {
  return std::make_unique<PgCatalog>(conninfo, secrets, schema, display);
}

}  // namespace tether::ducklake
