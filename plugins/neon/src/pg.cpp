#include "pg.hpp"

#include <memory>

#include <libpq-fe.h>

#include "model.hpp"
#include "tether/sdk/error.hpp"

namespace tether::neon {

using sdk::BackendError;

namespace {

// The newest committed xid among the 65536 below the snapshot's xmax (n); `<n` when none.
constexpr const char* kProbeSql = R"(
WITH n AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS nx)
SELECT pg_current_wal_flush_lsn()::text,
       (SELECT max(x) FROM generate_series(greatest((SELECT nx FROM n) - 65536, 3), (SELECT nx FROM n) - 1) AS x
         WHERE pg_xact_status(x::text::xid8) = 'committed')::text,
       (SELECT nx FROM n)::text)";

// A write transaction holds an xid; `active` is a statement running right now.
constexpr const char* kWritersSql = R"(
SELECT count(*)::text FROM pg_stat_activity
 WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
   AND (state = 'active' OR backend_xid IS NOT NULL))";

std::string first_line(const char* s) {
  std::string t = s ? s : "";
  auto nl = t.find('\n');
  if (nl != std::string::npos) t.resize(nl);
  return t;
}

using Conn = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

Conn connect(const std::string& uri) {
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {uri.c_str(), "15", "tether-neon", nullptr};
  Conn c(PQconnectdbParams(keys, values, 1), &PQfinish);
  if (!c || PQstatus(c.get()) != CONNECTION_OK)
    throw BackendError("neon: cannot connect to " + redact_password(uri) + ": " +
                       first_line(c ? PQerrorMessage(c.get()) : "out of memory"));
  PQsetNoticeProcessor(c.get(), [](void*, const char*) {}, nullptr);
  return c;
}

Result query(PGconn* c, const char* sql, const std::string& uri) {
  Result r(PQexec(c, sql), &PQclear);
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1)
    throw BackendError("neon: query on " + redact_password(uri) + " failed: " +
                       first_line(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(c)));
  return r;
}

}  // namespace

Probe probe(const std::string& uri) {
  Conn c = connect(uri);
  Result r = query(c.get(), kProbeSql, uri);
  Probe p;
  p.lsn = PQgetvalue(r.get(), 0, 0);
  if (PQgetisnull(r.get(), 0, 1)) p.commit_xid = std::string("<") + PQgetvalue(r.get(), 0, 2);
  else p.commit_xid = PQgetvalue(r.get(), 0, 1);
  return p;
}

long active_writers(const std::string& uri) {
  Conn c = connect(uri);
  Result r = query(c.get(), kWritersSql, uri);
  return std::stol(PQgetvalue(r.get(), 0, 0));
}

}  // namespace tether::neon
