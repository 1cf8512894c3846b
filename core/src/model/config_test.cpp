// Tests of model/config: tether.toml reading, writing and the committed-config refusals
// (docs/FORMAT.md#tethertoml).
#include <doctest/doctest.h>

#include "model/test_util.hpp"
#include "tether/errors.hpp"
#include "tether/model/config.hpp"
#include "tether/model/json.hpp"

using namespace tether::model;

namespace {
std::string message_of(const std::string& text) {
  try {
    parse_repo_config(text);
  } catch (const tether::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("defaults of a minimal tether.toml") {
  const auto c = parse_repo_config("");
  CHECK(c.version == 1);
  CHECK_FALSE(c.dataset_id);
  CHECK_FALSE(c.snapshot_auto);
  CHECK_FALSE(c.verify_on_status);
  CHECK(c.new_fork == "lazy");
  CHECK(c.default_file == "immutable");
  CHECK(c.default_pin == "native");
  CHECK(c.prefer() == "jj");
  CHECK(c.trunk() == "main");
  CHECK(c.backends == Json::object());
  CHECK_FALSE(c.import_query);
}

TEST_CASE("a full tether.toml is read and written back in the table order of docs/FORMAT.md") {
  const std::string text =
      "[tether]\nversion = 5\n\n[dataset]\nid = \"0a1b2c3d\"\n\n[snapshot]\nauto = true\n\n[verify]\non_status = true\n\n"
      "[new]\nfork = \"eager\"\n\n[defaults]\nfile = \"versioned\"\npin = \"record\"\n\n[vcs]\nprefer = \"git\"\n"
      "trunk = \"develop\"\n\n[backends.file.storage_options]\nregion = \"eu-west-1\"\n\n[import]\nquery = \"select 1\"\n";
  const auto c = parse_repo_config(text);
  CHECK(c.version == 5);
  CHECK(c.dataset_id == "0a1b2c3d");
  CHECK(c.snapshot_auto);
  CHECK(c.verify_on_status);
  CHECK(c.new_fork == "eager");
  CHECK(c.default_file == "versioned");
  CHECK(c.default_pin == "record");
  CHECK(c.prefer() == "git");
  CHECK(c.trunk() == "develop");
  CHECK(c.backend("file") == Json::parse(R"({"storage_options": {"region": "eu-west-1"}})"));
  CHECK(c.backend("neon") == Json::object());
  CHECK(c.import_query == "select 1");
  CHECK(repo_config_to_toml(c) == text);
}

TEST_CASE("writing drops what is unset") {
  RepoConfig c;
  c.version = kConfigVersion;
  c.dataset_id = "0a1b2c3d";
  CHECK(repo_config_to_toml(c) ==
        "[tether]\nversion = 5\n\n[dataset]\nid = \"0a1b2c3d\"\n\n[snapshot]\nauto = false\n\n[verify]\n"
        "on_status = false\n\n[new]\nfork = \"lazy\"\n\n[defaults]\nfile = \"immutable\"\npin = \"native\"\n");
  tether::model::testing::TempDir tmp;
  write_repo_config({tmp.path(), "tether.toml"}, c);
  const auto back = read_repo_config({tmp.path(), "tether.toml"});
  CHECK(back.dataset_id == c.dataset_id);
  CHECK(back.version == 5);
  CHECK_FALSE(back.vcs_trunk);
}

TEST_CASE("config errors") {
  CHECK(message_of("[tether]\nversion = 6\n[dataset]\nid = \"0a1b2c3d\"\n") ==
        "tether.toml is version 6, newer than this tether understands (5); upgrade tether");
  CHECK(message_of("[tether]\nversion = 5\n[dataset]\nid = \"0a1b2c3d\"\n[new]\nfork = \"x\"\n") ==
        "invalid [new] fork: 'x' (lazy or eager)");
  CHECK(message_of("[tether]\nversion = 5\n[dataset]\nid = \"0a1b2c3d\"\n[defaults]\npin = \"weak\"\n") ==
        "invalid [defaults] pin: 'weak' (native or record)");
  CHECK(message_of("[tether]\nversion = \"5\"\n") == "tether.toml: [tether] version must be an integer, not a string");
  CHECK(message_of("[snapshot]\nauto = 1\n") == "tether.toml: [snapshot] auto must be a boolean, not an integer");
  CHECK(message_of("[backends]\nfile = 3\n") == "tether.toml: [backends.file] must be a table, not an integer");
  CHECK(message_of("[tether]\nversion = 5\n[dataset]\nid = \"0a1b2c3d\"\n[vcs]\ngit_path = \"/x\"\njj_path = \"/y\"\n") ==
        "tether.toml [vcs] sets git_path, jj_path; a committed file arrives with every clone and must not choose "
        "executables. Put it in .tether/secrets.toml (untracked) under [vcs], or set TETHER_GIT / TETHER_JJ");
  CHECK(message_of("[vcs]\njj_path = \"/y\"\n").find("tether.toml [vcs] sets jj_path; ") == 0);
  const std::string syntax = message_of("[tether]\nversion = 5\n[dataset\n");
  CHECK(syntax.rfind("tether.toml:3: ", 0) == 0);
}

TEST_CASE("dataset id is required from version 2") {
  for (const char* text : {"[tether]\nversion = 2\n", "[tether]\nversion = 5\n[dataset]\nid = \"0A1B2C3D\"\n",
                           "[tether]\nversion = 5\n[dataset]\nid = \"0a1b2c\"\n"}) {
    const std::string msg = message_of(text);
    CHECK(msg.rfind("tether.toml has no valid [dataset] id (8 hex chars). It namespaces this dataset's pins and "
                    "working branches in every store; add\n  [dataset]\n  id = \"",
                    0) == 0);
    CHECK(msg.find("\"\n(pins and branches made before it was set are not recognised: re-commit and `new`, or "
                   "`tether repair`)") != std::string::npos);
  }
  CHECK(parse_repo_config("[tether]\nversion = 1\n").version == 1);
}

TEST_CASE("committed backend config allowlists") {
  const std::vector<std::string> safe = {"storage_options"};
  const std::map<std::string, std::vector<std::string>> options = {
      {"storage_options", {"region", "allow_http", "virtual_hosted_style_request", "conditional_put"}}};
  CHECK_NOTHROW(check_committed_backend_config("file", Json::parse(R"({"storage_options": {"region": "eu"}})"), safe, options));
  CHECK_NOTHROW(check_committed_backend_config("file", Json::object(), safe, options));
  CHECK_THROWS_WITH_AS(
      check_committed_backend_config(
          "file", Json::parse(R"({"endpoint": "http://x", "storage_options": {"region": "eu", "secret_access_key": "s"}})"),
          safe, options),
      "tether.toml [backends.file] sets endpoint, storage_options.secret_access_key; a committed file arrives with every "
      "clone and must not choose executables, endpoints, credentials, or SQL. Put it in .tether/secrets.toml "
      "(untracked) under [backends.file], or in the environment",
      tether::ConfigError);
  // A safe key whose table has no allowlist refuses every sub-key.
  CHECK_THROWS_WITH_AS(check_committed_backend_config("neon", Json::parse(R"({"opts": {"a": 1}})"), {"opts"}, {}),
                       doctest::Contains("tether.toml [backends.neon] sets opts.a; "), tether::ConfigError);
  CHECK_THROWS_WITH_AS(check_committed_backend_config("neon", Json::parse(R"({"api_url": "x"})"), {}, {}),
                       doctest::Contains("sets api_url; "), tether::ConfigError);
}
