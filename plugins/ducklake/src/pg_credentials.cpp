#include "pg_credentials.hpp"

#include <libpq-fe.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "tether/sdk/error.hpp"

namespace tether::ducklake {
namespace {

using sdk::BackendError;

// Keywords a committed conninfo may set: which server, how to reach it, how to talk to it.
const std::set<std::string> kCommittedKeywords = {
    "host", "hostaddr", "port", "dbname", "user", "connect_timeout", "application_name", "fallback_application_name",
    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "sslmode",
    "requiressl", "sslcompression", "sslsni", "ssl_min_protocol_version", "ssl_max_protocol_version", "gssencmode",
    "channel_binding", "target_session_attrs", "load_balance_hosts", "client_encoding"};

// A path that cannot exist (its parent is a file): libpq then sends no client certificate,
// whatever $PGSSLCERT, a service file or ~/.postgresql say.
constexpr const char* kNoFile = "/dev/null/tether-no-client-certificate";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split_hosts(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  return out;
}

// The password of the first ~/.pgpass line whose host field is this host literally.
std::optional<std::string> pgpass_lookup(const std::string& text, const std::string& host, const std::string& port,
                                         const std::string& db, const std::string& user) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f(1);
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) f.back() += line[++i];
      else if (line[i] == ':' && f.size() < 5) f.emplace_back();
      else f.back() += line[i];
    }
    if (f.size() != 5) continue;
    auto match = [](const std::string& field, const std::string& v) { return field == "*" || field == v; };
    if (f[0] == host && match(f[1], port) && match(f[2], db) && match(f[3], user)) return f[4];
  }
  return std::nullopt;
}

std::string scalar(const sdk::Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  return {};
}

}  // namespace

PgEnvironment current_environment() {
  PgEnvironment e;
  e.pghost = env("PGHOST");
  e.pghostaddr = env("PGHOSTADDR");
  e.pgport = env("PGPORT");
  e.pguser = env("PGUSER");
  e.pgdatabase = env("PGDATABASE");
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) e.login = pw->pw_name;
  std::string home = env("HOME");
  if (home.empty())
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir) home = pw->pw_dir;
  if (!home.empty()) {
    std::string path = home + "/.pgpass";
    struct stat st {};
    // libpq ignores a file others can read; so do we.
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0) {
      std::ifstream f(path);
      std::stringstream ss;
      ss << f.rdbuf();
      e.pgpass = ss.str();
    }
  }
  return e;
}

PgConnectPlan plan_connection(const std::string& conninfo, const sdk::Json& secrets, const PgEnvironment& environment) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  if (!opts) {
    std::string why = err ? err : "out of memory";
    if (err) PQfreemem(err);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw BackendError("the DuckLake catalog conninfo is not one libpq reads: " + why);
  }
  std::map<std::string, std::string> committed;
  std::set<std::string> keywords;
  for (PQconninfoOption* o = opts; o->keyword; ++o) {
    keywords.insert(o->keyword);
    if (o->val && *o->val) committed[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  for (const auto& [k, v] : committed)
    if (!kCommittedKeywords.count(k))
      throw BackendError("the DuckLake catalog conninfo in the manifest sets '" + k +
                         "', which chooses credentials or files on this machine, and a manifest arrives with every "
                         "clone; set it in .tether/secrets.toml under [objects.\"<key>\"] instead");

  PgConnectPlan plan;
  std::map<std::string, std::string> p = committed;
  std::set<std::string> from_secrets;
  std::vector<std::string> named;
  if (secrets.is_object()) {
    for (auto it = secrets.begin(); it != secrets.end(); ++it) {
      if (it.key() == "hosts" && it->is_array()) {
        for (const auto& h : *it)
          if (h.is_string()) named.push_back(h.get<std::string>());
        continue;
      }
      if (!keywords.count(it.key())) continue;  // not a libpq keyword: not ours
      std::string v = scalar(*it);
      if (v.empty()) continue;
      p[it.key()] = v;
      from_secrets.insert(it.key());
    }
  }
  for (const auto& h : split_hosts(environment.pghost)) named.push_back(h);
  for (const auto& h : split_hosts(environment.pghostaddr)) named.push_back(h);

  std::vector<std::string> hosts = split_hosts(p.count("host") ? p["host"] : "");
  for (const auto& h : split_hosts(p.count("hostaddr") ? p["hostaddr"] : "")) hosts.push_back(h);
  for (const auto& h : hosts) plan.hosts += (plan.hosts.empty() ? "" : ",") + h;
  bool all_named = true;
  for (const auto& h : hosts)
    if (std::find(named.begin(), named.end(), h) == named.end()) all_named = false;
  plan.host_named = hosts.empty() || from_secrets.count("host") || from_secrets.count("hostaddr") || all_named;

  if (!plan.host_named) {
    if (!from_secrets.count("password")) {
      const std::string user = p.count("user") ? p["user"] : !environment.pguser.empty() ? environment.pguser : environment.login;
      const std::string port = p.count("port") ? p["port"] : !environment.pgport.empty() ? environment.pgport : "5432";
      const std::string db = p.count("dbname") ? p["dbname"] : !environment.pgdatabase.empty() ? environment.pgdatabase : user;
      std::optional<std::string> pw;
      if (hosts.size() == 1) pw = pgpass_lookup(environment.pgpass, hosts[0], port, db, user);
      if (pw) {
        p["password"] = *pw;
      } else {
        // libpq takes $PGPASSWORD (or a service file's or $PGPASSFILE's) for any password it
        // lacks, and an empty value means "lacks": only a value of our own keeps them out.
        p["password"] = kPlaceholderPassword;
        plan.placeholder_password = true;
      }
    }
    if (!from_secrets.count("sslcert")) p["sslcert"] = kNoFile;
    if (!from_secrets.count("sslkey")) p["sslkey"] = kNoFile;
  }
  for (auto& [k, v] : p) plan.params.emplace_back(k, v);
  return plan;
}

}  // namespace tether::ducklake
