// registry/pg_connect.hpp: the one way publish and import connect to PostgreSQL (libpq).
// Internal to the registry library: the only header that brings libpq-fe.h to its users.
#pragma once

#include <memory>
#include <string>

#include <libpq-fe.h>


namespace tether::registry {

using PgConn = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using PgResult = std::unique_ptr<PGresult, decltype(&PQclear)>;

// Connects to `dsn` with a 15 s connect timeout (unless the DSN sets one), the session in
// UTF-8 whatever the DSN says, `application_name` = `application`, and server notices
// silenced (stderr is the CLI's). Errors never show the password: an unparsable DSN is
// ConfigError `invalid PostgreSQL DSN: <libpq's reason, redacted>`, a refused connection
// TetherError `cannot connect to PostgreSQL (host H port P): <libpq's message, redacted>`.
PgConn connect_postgres(const std::string& dsn, const char* application);

// A libpq message on one line: trailing newlines dropped, inner ones (and the indentation
// after them) folded into one space.
std::string one_line(std::string message);

}  // namespace tether::registry
