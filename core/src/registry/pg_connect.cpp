// core/src/registry/pg_connect.cpp: connecting to PostgreSQL for publish and import, and
// keeping the DSN's password out of every message.
#include "registry/pg_connect.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>
#include <vector>

#include "tether/errors.hpp"

namespace tether::registry {

namespace {

constexpr std::string_view kRedacted = "********";

void replace_all(std::string& s, std::string_view what, std::string_view with) {
  if (what.empty()) return;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned v = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out += static_cast<char>(v);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool is_uri(std::string_view dsn) { return dsn.starts_with("postgresql://") || dsn.starts_with("postgres://"); }

// Every spelling of a password the DSN may carry, found without trusting it to parse.
std::vector<std::string> dsn_secrets(const std::string& dsn) {
  std::vector<std::string> found;
  char* err = nullptr;
  if (PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err)) {
    for (PQconninfoOption* o = opts; o->keyword; ++o)
      if (std::string_view(o->keyword) == "password" && o->val && *o->val) found.emplace_back(o->val);
    PQconninfoFree(opts);
  }
  if (err) PQfreemem(err);
  const bool uri = is_uri(dsn);
  if (uri) {  // postgresql://user:secret@host/...
    std::size_t start = dsn.find("://") + 3;
    std::size_t end = dsn.find_first_of("/?#", start);
    std::string_view authority = std::string_view(dsn).substr(start, end == std::string::npos ? end : end - start);
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
      std::string_view userinfo = authority.substr(0, at);
      if (auto colon = userinfo.find(':'); colon != std::string_view::npos) {
        found.emplace_back(userinfo.substr(colon + 1));
        found.push_back(percent_decoded(userinfo.substr(colon + 1)));
      }
    }
  }
  // password=secret, password = 'sec ret', ?password=secret&...
  for (std::size_t at = dsn.find("password"); at != std::string::npos; at = dsn.find("password", at + 1)) {
    std::size_t i = at + 8;
    while (i < dsn.size() && dsn[i] == ' ') ++i;
    if (i >= dsn.size() || dsn[i] != '=') continue;
    ++i;
    while (i < dsn.size() && dsn[i] == ' ') ++i;
    std::string raw, value;
    if (i < dsn.size() && dsn[i] == '\'') {
      for (++i; i < dsn.size() && dsn[i] != '\''; ++i) {
        if (dsn[i] == '\\' && i + 1 < dsn.size()) raw += dsn[i++];
        raw += dsn[i];
        value += dsn[i];
      }
    } else {
      const char* stop = uri ? "&#" : " \t\n";
      for (; i < dsn.size() && !std::strchr(stop, dsn[i]); ++i) raw += dsn[i];
      value = uri ? percent_decoded(raw) : raw;
    }
    found.push_back(raw);
    found.push_back(value);
  }
  std::erase_if(found, [](const std::string& s) { return s.empty(); });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return found;
}

}  // namespace

PgConn connect_postgres(const std::string& dsn, const char* application) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (!opts) {
    std::string why = err ? err : "out of memory";
    if (err) PQfreemem(err);
    throw ConfigError("invalid PostgreSQL DSN: " + redact_dsn_secrets(one_line(why), dsn));
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
                      "): " + redact_dsn_secrets(one_line(PQerrorMessage(c.get())), dsn));
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

std::string redact_dsn_secrets(const std::string& message, const std::string& dsn) {
  std::string out = message;
  for (const auto& secret : dsn_secrets(dsn)) replace_all(out, secret, kRedacted);
  return out;
}

}  // namespace tether::registry
