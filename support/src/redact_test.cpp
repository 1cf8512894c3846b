// Tests of support/redact: credentials in every spelling tether may print or store, and the
// look-alikes that must stay.
#include <doctest/doctest.h>

#include "tether/support/redact.hpp"

using namespace tether::support;

TEST_CASE("URL userinfo") {
  CHECK(redact_secrets("pin was not pushed to https://alice:ghp_TOKEN123@git.example/x.git: denied") ==
        "pin was not pushed to https://alice:****@git.example/x.git: denied");
  CHECK(redact_secrets("https://ghp_TOKEN123@github.com/o/r.git") == "https://****@github.com/o/r.git");
  CHECK(redact_secrets("fatal: unable to access 'https://x-access-token:T0K@h/r/': 403") ==
        "fatal: unable to access 'https://x-access-token:****@h/r/': 403");
  CHECK(redact_secrets("postgresql://app:s3cr%40t@ep-1.neon.tech/neondb?sslmode=require") ==
        "postgresql://app:****@ep-1.neon.tech/neondb?sslmode=require");
  CHECK(redact_secrets("postgresql://app:p@ss@127.0.0.1:5432/db") == "postgresql://app:****@127.0.0.1:5432/db");
  CHECK(redact_secrets("at https://u:pw@host") == "at https://u:****@host");
  CHECK(redact_secrets("git+https://u:pw@host/x") == "git+https://u:****@host/x");
  // A user name alone is kept where it is a user name (ssh, postgres); e-mail addresses stay.
  CHECK(redact_secrets("ssh://git@host/x.git") == "ssh://git@host/x.git");
  CHECK(redact_secrets("postgresql://app@h/db") == "postgresql://app@h/db");
  CHECK(redact_secrets("see https://host/path and mail bob@example.com") == "see https://host/path and mail bob@example.com");
  CHECK(redact_secrets("git@github.com:o/r.git") == "git@github.com:o/r.git");
  CHECK(redact_secrets("file:///srv/x.git") == "file:///srv/x.git");
}

TEST_CASE("password= in key=value DSNs, quoted and unquoted") {
  CHECK(redact_secrets("import source not found: host=h password=p dbname=x") ==
        "import source not found: host=h password=**** dbname=x");
  CHECK(redact_secrets("host=h password='s3 cr\\'et' dbname=x") == "host=h password=**** dbname=x");
  CHECK(redact_secrets("ducklake:postgres:password = 'a b\\'c' dbname=x") == "ducklake:postgres:password = **** dbname=x");
  CHECK(redact_secrets("PASSWORD=Hunter2 host=h") == "PASSWORD=**** host=h");
  CHECK(redact_secrets("sslpassword=k host=h") == "sslpassword=**** host=h");
  CHECK(redact_secrets("host=h password=") == "host=h password=");
  CHECK(redact_secrets("dbname=passwords host=h") == "dbname=passwords host=h");
  // JSON (error details) and quoted DSNs keep their closing quote
  CHECK(redact_secrets("{\"dsn\":\"host=h password=p\"}") == "{\"dsn\":\"host=h password=****\"}");
  CHECK(redact_secrets("source \"host=h password=p\" not found") == "source \"host=h password=****\" not found");
  CHECK(redact_secrets("ducklake:sqlite:/d/password=x.db") == "ducklake:sqlite:/d/password=x.db");
}

TEST_CASE("tokens in query strings") {
  CHECK(redact_secrets("postgresql://h/db?user=u&password=x&sslmode=require") ==
        "postgresql://h/db?user=u&password=****&sslmode=require");
  CHECK(redact_secrets("https://h/x?token=abc") == "https://h/x?token=****");
  CHECK(redact_secrets("https://h/x?a=1&access_token=abc#f") == "https://h/x?a=1&access_token=****#f");
  CHECK(redact_secrets("https://acct.blob.core.windows.net/c/b?sv=2022&sp=r&sig=abc%2Bdef") ==
        "https://acct.blob.core.windows.net/c/b?sv=2022&sp=r&sig=****");
  CHECK(redact_secrets("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ff00") ==
        "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=****&X-Amz-Signature=****");
  CHECK(redact_secrets("https://h/x?X-Amz-Security-Token=t1&x-goog-signature=s2") ==
        "https://h/x?X-Amz-Security-Token=****&x-goog-signature=****");
  CHECK(redact_secrets("https://h/x?api_key=k1&apikey=k2&client_secret=k3") ==
        "https://h/x?api_key=****&apikey=****&client_secret=****");
  CHECK(redact_secrets("'https://h/x?token=abc'") == "'https://h/x?token=****'");
  CHECK(redact_secrets("postgresql://h/db?mypassword=x") == "postgresql://h/db?mypassword=****");
  CHECK(redact_secrets("https://h/x?signed=yes&keys=2") == "https://h/x?signed=yes&keys=2");
  CHECK(redact_secrets("tether push --token=abc now") == "tether push --token=**** now");
}

TEST_CASE("Authorization headers") {
  CHECK(redact_secrets("Authorization: Bearer abc.def") == "Authorization: Bearer ****");
  CHECK(redact_secrets("authorization: Basic dXNlcjpwYXNz") == "authorization: Basic ****");
  // Found in any case, with no '=' or "://" in the text, at its start or after other colons.
  CHECK(redact_secrets("AUTHORIZATION: token ghp_x") == "AUTHORIZATION: token ****");
  CHECK(redact_secrets("a:b: AuThOrIzAtIoN:Bearer t0k") == "a:b: AuThOrIzAtIoN:Bearer ****");
  CHECK(redact_secrets("Authorization:") == "Authorization:");
}

// The fast path: text without '=', "://" or "authorization:" comes back as it is, byte for
// byte, and one trigger anywhere still finds the credential.
TEST_CASE("text without any credential's marker is returned as it is") {
  const std::string plain = "        ok  0123456789ab:obj00/a:b  tether.0a1b2c3d.1 -> 0123, expected 4567 :/ :x /";
  CHECK(redact_secrets(plain) == plain);
  CHECK(redact_secrets("") == "");
  CHECK(redact_secrets(":") == ":");
  CHECK(redact_secrets(std::string("nul\0 inside", 11)) == std::string("nul\0 inside", 11));
  CHECK(redact_secrets(plain + " token=abc") == plain + " token=****");
  CHECK(redact_secrets(plain + " https://u:pw@h") == plain + " https://u:****@h");
  CHECK(redact_secrets(plain + " authorization: Basic q") == plain + " authorization: Basic ****");
}

TEST_CASE("several in one text, nothing else touched") {
  CHECK(redact_secrets("a https://u:p@h b password=q c ?token=r") == "a https://u:****@h b password=**** c ?token=****");
  CHECK(redact_secrets("nothing here: key=value a=b") == "nothing here: key=value a=b");
  CHECK(redact_secrets("") == "");
}

TEST_CASE("secrets_in and redact_secrets_of: the DSN's secrets in any message") {
  CHECK(redact_secrets_of("x hunter2 y", "host=h password=hunter2 port=1") == "x **** y");
  CHECK(redact_secrets_of("pw s3 cr3t", "host=h password='s3 cr3t'") == "pw ****");
  CHECK(redact_secrets_of("at postgresql://u:p%40ss@h/db", "postgresql://u:p%40ss@h/db") == "at postgresql://u:****@h/db");
  CHECK(redact_secrets_of("p@ss", "postgresql://u:p%40ss@h/db") == "****");
  CHECK(redact_secrets_of("q=zz", "postgres://h/db?sslmode=disable&password=zz") == "q=****");
  CHECK(redact_secrets_of("bad: host=h password=hunter2 =", "host=h password=hunter2 =") == "bad: host=h password=**** =");
  CHECK(redact_secrets_of("nothing here", "host=h") == "nothing here");
  CHECK(secrets_in("https://a:b%21@h") == std::vector<std::string>{"b%21", "b!"});
}

TEST_CASE("append_redacted appends what redact_secrets returns") {
  for (std::string_view t : {"plain text", "postgresql://u:pw@h/db", "dbname=x password=secret host=h", "a:b:c", ""}) {
    std::string out = "prefix|";
    append_redacted(out, t);
    CHECK(out == "prefix|" + redact_secrets(t));
  }
}
