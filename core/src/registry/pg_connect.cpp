// core/src/registry/pg_connect.cpp: connecting to PostgreSQL for publish and import, and
// keeping the DSN's password out of every message (support::redact_secrets_of).
#include "registry/pg_connect.hpp"

#include "tether/errors.hpp"
#include "tether/support/redact.hpp"

namespace tether::registry {

PgConn connect_postgres(const std::string& dsn, const char* application) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (!opts) {
    std::string why = err ? err : "out of memory";
    if (err) PQfreemem(err);
    throw ConfigError("invalid PostgreSQL DSN: " + support::redact_secrets_of(one_line(why), dsn));
  }
  PQconninfoFree(opts);
  // The DSN comes after our defaults (it may override them) and before client_encoding (our
  // text is UTF-8 whatever it says).
  const char* keys[] = {"connect_timeout", "application_name", "dbname", "client_encoding", nullptr};
  const char* values[] = {"15", application, dsn.c_str(), "UTF8", nullptr};
  PgConn c(PQconnectdbParams(keys, values, 1), &PQfinish);
  if (!c) throw TetherError("cannot connect to PostgreSQL: out of memory");
  if (PQstatus(c.get()) != CONNECTION_OK) {
    auto str = [](const char* s) { return std::string(s && *s ? s : "(default)"); };
    throw TetherError("cannot connect to PostgreSQL (host " + str(PQhost(c.get())) + " port " + str(PQport(c.get())) +
                      "): " + support::redact_secrets_of(one_line(PQerrorMessage(c.get())), dsn));
  }
  // CREATE ... IF NOT EXISTS notices ("already exists, skipping") are not ours to print.
  PQsetNoticeProcessor(c.get(), [](void*, const char*) {}, nullptr);
  return c;
}

std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n') {
      out += s[i];
      continue;
    }
    while (i + 1 < s.size() && (s[i + 1] == '\t' || s[i + 1] == ' ')) ++i;
    out += ' ';
  }
  return out;
}

}  // namespace tether::registry
