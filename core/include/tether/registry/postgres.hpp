// tether/registry/postgres.hpp: what publish and import share about a PostgreSQL DSN.
#pragma once

#include <string>

namespace tether::registry {

// The message with every password the DSN carries (`password=...`, `user:pass@` in a URI,
// percent-encoded or quoted) replaced by `********`. Used on every libpq message that could
// echo the DSN.
std::string redact_dsn_secrets(const std::string& message, const std::string& dsn);

}  // namespace tether::registry
