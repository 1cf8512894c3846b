// pg_credentials: which credentials a PostgreSQL catalog named by a manifest gets
// (docs/security.md, "Credentials"). A manifest arrives with every clone, so its conninfo
// may choose the server but never which of this machine's credentials go there:
//  - the committed conninfo may set only keywords that choose a server and how to reach it
//    (host, hostaddr, port, dbname, user, sslmode, timeouts, ...); one that picks credentials
//    or files here (password, passfile, service, sslkey, sslcert, sslrootcert, options, ...)
//    is refused;
//  - the options of .tether/secrets.toml for the object ([objects."<key>"], the longest
//    [uris."<prefix>"] of its metadata, [backends.ducklake]) whose names are libpq keywords
//    are applied over it: the user wrote those;
//  - libpq's environment ($PGPASSWORD, $PGPASSFILE, $PGSERVICE/$PGSERVICEFILE, $PGSSLKEY,
//    $PGSSLCERT, ~/.postgresql/postgresql.crt, ...) applies only when the user named the host:
//    the conninfo names none (libpq's default, $PGHOST or the local socket), or every host it
//    names is in $PGHOST / $PGHOSTADDR or in the secrets option `hosts`, or secrets set
//    `host`/`hostaddr` themselves. Any other host gets a password only from secrets or from a
//    ~/.pgpass line naming that host literally (a `*` host is no name), no client certificate,
//    and, when it asks for a password there is none for, a placeholder that proves nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tether/sdk/types.hpp"

namespace tether::ducklake {

// What the decision reads from this machine; current_environment() fills it.
struct PgEnvironment {
  std::string pghost, pghostaddr, pgport, pguser, pgdatabase;
  std::string login;   // the OS user name (libpq's default user)
  std::string pgpass;  // ~/.pgpass, when it exists and is private (mode 0600 or stricter)
};
PgEnvironment current_environment();

struct PgConnectPlan {
  // Keywords and values for PQconnectdbParams with expand_dbname = 0 (no value is parsed
  // again, so none can add keywords).
  std::vector<std::pair<std::string, std::string>> params;
  bool host_named = false;           // the environment applies
  bool placeholder_password = false; // a password the server may ask for is the placeholder
  std::string hosts;                 // the committed host(s), for messages
};

inline constexpr const char* kPlaceholderPassword = "tether-sends-no-password-to-hosts-you-did-not-name";

// Throws sdk::BackendError (one line, naming the keyword and the way out) for a conninfo
// libpq cannot parse or one that sets a keyword a manifest may not.
PgConnectPlan plan_connection(const std::string& conninfo, const sdk::Json& secrets, const PgEnvironment& env);

}  // namespace tether::ducklake
