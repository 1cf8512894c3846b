// tether/support/redact.hpp: the one place that knows what a credential looks like in text.
// Everything that can carry a URL or a DSN out of the process goes through redact_secrets():
// plugin error and log messages (host), every line the CLI prints, every op-log entry, and the
// DuckLake and Neon plugins' own messages. Plain text in, plain text out (no JSON, no TOML).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tether::support {

// What a credential is replaced by.
inline constexpr std::string_view kRedacted = "****";

// The text with every credential it carries replaced by kRedacted:
//  - the password of URL userinfo (`scheme://user:PASS@host`), and for http(s)/ftp(s) a
//    userinfo without a password too (`https://TOKEN@host`: tokens are given as user names);
//  - the value of `key=value` whose key is a credential, in a key=value DSN (quoted `'...'`
//    with backslash escapes, or unquoted up to whitespace or a double quote) or a query
//    string (up to `&`, `#`, whitespace or a quote). Credential keys: any key ending in
//    `password` (`sslpassword`), `passwd`, `pwd`, `secret`, `token` (`access_token`,
//    `X-Amz-Security-Token`), `signature` (`X-Amz-Signature`) or `credential`
//    (`X-Amz-Credential`), and `sig`, `api_key`, `apikey`, `access_key`, `secret_key`,
//    `private_key`, `account_key`; matched case-blind, `-` and `_` alike, only where the key
//    starts a word (`/d/password=x.db` is a path);
//  - the credentials of an `Authorization: <scheme> <credentials>` header.
// Anything else is left as it is.
std::string redact_secrets(std::string_view text);
// The same, appended to `out` (for a printer of many lines: no string per line).
void append_redacted(std::string& out, std::string_view text);

// The credentials redact_secrets() would hide in `text`, as written and decoded (quotes
// and backslashes removed, percent-encoding decoded), longest first, without repeats. For
// messages that may echo a secret without its key (a libpq error about a DSN).
std::vector<std::string> secrets_in(std::string_view text);

// `message` through redact_secrets(), then every secret of `source` (secrets_in) replaced
// wherever it appears.
std::string redact_secrets_of(std::string_view message, std::string_view source);

}  // namespace tether::support
