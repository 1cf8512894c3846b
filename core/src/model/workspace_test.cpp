// Tests of model/workspace, model/secrets, model/gitignore and model/fsutil.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>

#include "model/test_util.hpp"
#include "tether/errors.hpp"
#include "tether/model/fsutil.hpp"
#include "tether/model/gitignore.hpp"
#include "tether/model/hash.hpp"
#include "tether/model/json.hpp"
#include "tether/model/secrets.hpp"
#include "tether/model/workspace.hpp"

using namespace tether::model;
using tether::model::testing::TempDir;
using tether::model::testing::write_text;

TEST_CASE("workspace round-trip writes only non-empty tables") {
  Workspace ws;
  ws.workspace_id = "0123456789abcdef0123456789abcdef";
  CHECK(workspace_to_toml(ws) == "workspace_id = \"0123456789abcdef0123456789abcdef\"\n");
  ws.bookmark = "feat/x";
  ws.last_snapshot_at = "2024-05-01T12:00:00.000001+00:00";
  ws.working_refs["zarr/imaging"] = "tether.ws.0a1b2c3d.feat-x-cdd300";
  ws.pending_forks["raw"] = "tether.ws.0a1b2c3d.feat-x-cdd300";
  ws.pending_resets["raw"] = Json{{"snapshot_id", "A"}};
  ws.fork_points["zarr/imaging"] = Json{{"snapshot_id", "B"}};
  ws.base_states["zarr/imaging"] = Json{{"snapshot_id", "B"}, {"n", 3}};
  ws.set_snapshot("zarr/imaging", Json{{"snapshot_id", "C"}, {"nested", {{"x", 1.5}}}});
  ws.set_snapshot_error("raw", "[raw] no such file: /data/raw");
  const std::string text = workspace_to_toml(ws);
  CHECK(text.find("[base_states.\"zarr/imaging\"]\nn = 3\nsnapshot_id = \"B\"\n") != std::string::npos);
  CHECK(text.find("[last_snapshot_errors]\nraw = \"[raw] no such file: /data/raw\"\n") != std::string::npos);
  CHECK(parse_workspace(text, "workspace.toml") == ws);

  ws.set_snapshot("raw", Json{{"type", "dir"}});
  CHECK(ws.last_snapshot_errors.empty());
  ws.forget_key("zarr/imaging");
  CHECK(ws.working_refs.empty());
  CHECK(ws.base_states.empty());
  CHECK(ws.fork_points.empty());
  CHECK(ws.last_snapshot.size() == 1);
}

TEST_CASE("workspace read errors and defaults") {
  const auto ws = parse_workspace("", "workspace.toml");
  CHECK(is_lower_hex(ws.workspace_id, 32));
  CHECK_FALSE(ws.bookmark);
  CHECK_THROWS_WITH_AS(parse_workspace("bookmark = 3\n", ".tether/workspace.toml"),
                       ".tether/workspace.toml: 'bookmark' must be a string", tether::ConfigError);
  CHECK_THROWS_WITH_AS(parse_workspace("[working_refs]\nraw = 1\n", "w"), "w: [working_refs] 'raw' must be a string",
                       tether::ConfigError);
}

TEST_CASE("claiming a workspace is create-if-absent") {
  TempDir tmp;
  const auto path = CheckoutPath{tmp.path(), "workspace.toml"};
  CHECK_FALSE(read_workspace(path));
  const auto first = open_workspace(path);
  CHECK(first.persisted);
  REQUIRE(read_workspace(path));
  CHECK(read_workspace(path)->workspace_id == first.workspace.workspace_id);

  // A second claim loses to the file that exists.
  auto other = fresh_workspace();
  const auto second = claim_workspace(path, other);
  CHECK(second.persisted);
  CHECK(second.workspace.workspace_id == first.workspace.workspace_id);
  CHECK(open_workspace(path).workspace.workspace_id == first.workspace.workspace_id);

  // Only the workspace file is left: the claim's temp file is gone.
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(tmp.path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);

  // An unwritable directory keeps the workspace in memory.
  const auto missing_dir = CheckoutPath{tmp.path(), "no/such/workspace.toml"};
  const auto kept = claim_workspace(missing_dir, other);
  CHECK_FALSE(kept.persisted);
  CHECK(kept.workspace.workspace_id == other.workspace_id);
}

TEST_CASE("secrets: accessors, mode warning, redacted syntax errors") {
  TempDir tmp;
  const auto at = CheckoutPath{tmp.path(), "secrets.toml"};
  const auto path = at.full();
  CHECK(read_secrets(at).secrets.empty());
  CHECK_FALSE(read_secrets(at).warning);

  write_text(path, std::string(secrets_header()) +
                       "[vcs]\ngit_path = \"/opt/git\"\n[import]\nquery = \"select 1\"\n"
                       "[backends.neon]\napi_key_env = \"NEON_KEY\"\n"
                       "[uris.\"s3://bucket/\"]\nprofile = \"p\"\n[objects.\"zarr/imaging\"]\naccess_key_id = \"AK\"\n"
                       "secret_access_key = \"SK\"\n");
  ::chmod(path.c_str(), 0600);
  auto read = read_secrets(at);
  CHECK_FALSE(read.warning);
  CHECK(read.secrets.git_path() == "/opt/git");
  CHECK_FALSE(read.secrets.jj_path());
  CHECK(read.secrets.import_query() == "select 1");
  CHECK(read.secrets.backend("neon") == Json{{"api_key_env", "NEON_KEY"}});
  CHECK(read.secrets.backend("file") == Json::object());
  CHECK(read.secrets.uris() == Json::parse(R"({"s3://bucket/": {"profile": "p"}})"));
  CHECK(read.secrets.object("zarr/imaging")["secret_access_key"] == "SK");
  CHECK(read.secrets.object("raw") == Json::object());

  ::chmod(path.c_str(), 0640);
  read = read_secrets(at);
  CHECK(read.warning == path.string() + " is readable by other users; `chmod 600` it -- it may hold credentials");

  write_text(path, "token = \"s3cr3t\nx = 1\n");
  try {
    read_secrets(at);
    FAIL("expected a ConfigError");
  } catch (const tether::ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind(path.string() + ":1: ", 0) == 0);
    CHECK(msg.find("s3cr3t") == std::string::npos);
  }
  write_text(path, "[backends]\nneon = \"x\"\n");
  CHECK_THROWS_WITH_AS(read_secrets(at), (path.string() + ": [backends.\"neon\"] must be a table").c_str(),
                       tether::ConfigError);
}

TEST_CASE("ensure_ignored") {
  TempDir tmp;
  const auto at = tether_path(tmp.path());
  const auto dir = at.full();
  // only_present with nothing present writes nothing.
  CHECK_FALSE(ensure_ignored(at, true));
  CHECK_FALSE(std::filesystem::exists(dir / ".gitignore"));
  // The full form creates the file in docs/FORMAT.md's order.
  CHECK(ensure_ignored(at, false));
  CHECK(read_file(dir / ".gitignore") == "/workspace.toml\n/ops.jsonl\n/cache\n/lock\n/secrets.toml\n");
  CHECK_FALSE(ensure_ignored(at, false));
  // only_present appends just the present, unlisted names; a missing final newline is repaired.
  write_text(dir / ".gitignore", "/workspace.toml\n*.bak");
  write_text(dir / "ops.jsonl", "");
  std::filesystem::create_directories(dir / "cache");
  CHECK(ensure_ignored(at, true));
  CHECK(read_file(dir / ".gitignore") == "/workspace.toml\n*.bak\n/ops.jsonl\n/cache\n");
  CHECK_FALSE(ensure_ignored(at, true));
  CHECK(ensure_ignored(at, false));
  CHECK(read_file(dir / ".gitignore") == "/workspace.toml\n*.bak\n/ops.jsonl\n/cache\n/lock\n/secrets.toml\n");
}

TEST_CASE("atomic_write_file, read_file and the ISO clock") {
  TempDir tmp;
  const auto p = tmp.path() / "f.txt";
  atomic_write_file(p, "one");
  atomic_write_file(p, "two\n");
  CHECK(read_file(p) == "two\n");
  CHECK_THROWS_AS(read_file(tmp.path() / "missing"), tether::TetherError);
  CHECK_THROWS_AS(atomic_write_file(tmp.path() / "no" / "dir" / "f", "x"), tether::TetherError);
  atomic_write_file(tmp.path() / "secret", "x", 0600);
  struct stat st {};
  REQUIRE(::stat((tmp.path() / "secret").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  using namespace std::chrono;
  const sys_seconds base = sys_days{year{2024} / 5 / 1} + hours{12} + minutes{3} + seconds{4};
  CHECK(format_iso_utc(base) == "2024-05-01T12:03:04+00:00");
  CHECK(format_iso_utc(base + microseconds{7}) == "2024-05-01T12:03:04.000007+00:00");
  CHECK(format_iso_utc(base + microseconds{123456}) == "2024-05-01T12:03:04.123456+00:00");
  const auto now = now_iso_utc();
  CHECK(now.size() >= 25);
  CHECK(now.substr(now.size() - 6) == "+00:00");
}
