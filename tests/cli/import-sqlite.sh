#!/usr/bin/env bash
# `tether import` from a SQLite file: a registry table `data_object` mapped to the canonical
# columns with --query, a table of canonical columns with --table, the default query from
# .tether/secrets.toml. Refused, each with nothing changed (neither the dataset nor the
# database): neither or both of --table/--query, a bad table name, a query that writes, two
# statements, and a query committed in tether.toml.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
db="$TMP/registry.db"
sqlite3 "$db" <<'SQL'
CREATE TABLE data_object (name TEXT, type TEXT, object_uri TEXT, size INTEGER);
INSERT INTO data_object VALUES ('run-041', 'IcechunkStore', 'sys41', 10), ('notes', 'Other', 'x', 2);
CREATE TABLE registry (key TEXT, kind TEXT, uri TEXT, locator_json TEXT, policy_pin TEXT, owner TEXT);
INSERT INTO registry VALUES ('db', 'memory', NULL, '{"uri": "sys1", "branch": "main"}', 'record', 'ana'),
                            ('db/two', 'memory', 'sys2', NULL, NULL, NULL);
SQL
db_dump() { sqlite3 "$db" .dump; }
mapping="SELECT 'zarr/' || name AS key, 'memory' AS kind, object_uri AS uri FROM data_object WHERE type = 'IcechunkStore'"

ok tether import "$db" --query "$mapping" --dry-run
eq "$OUT" "plan: import (1 write(s))
                 add  zarr/run-041  [memory] sys41  register"
ok tether import "$db" --table registry --dry-run --json
eq "$(json '[(a["op"], a["key"], a["params"]["locator"]) for a in j["actions"]]')" \
  "[('add', 'db', {'branch': 'main', 'uri': 'sys1'}), ('add', 'db/two', {'uri': 'sys2'})]"
eq "$(json 'j["notes"]')" "['ignored columns: owner']"

# refusals
data=$(db_dump)
refused() {
  local msg=$1
  shift
  remember_state
  fails 1 tether import "$db" "$@"
  err_has "error: $msg"
  unchanged "$*"
  eq "$(db_dump)" "$data" "the database after: $*"
}
refused "give exactly one of --table or --query for a SQL source"
refused "give exactly one of --table or --query for a SQL source" --table registry --query "$mapping"
refused "invalid table name: 'registry; DROP TABLE registry'" --table "registry; DROP TABLE registry"
refused "the import query failed: the statement would write" --query "DELETE FROM data_object RETURNING name AS key"
refused "the import query failed: the statement would write" --query "UPDATE data_object SET name = 'x' RETURNING name AS key, 'memory' AS kind, 'x' AS uri"
refused "the import query failed: cannot run multiple commands" --query "$mapping; DELETE FROM data_object"
refused "the import query failed: no such table: nope" --query "SELECT * FROM nope"
remember_state
fails 1 tether import "$TMP/nope.db" --table registry
eq "$ERR" "$(printf '%s\n%s' "note: export/publish/import are experimental (tether.experimental.registry): the schema may change before 0.2" "error: import source not found: $TMP/nope.db")"
unchanged "a missing file"
printf '\n[import]\nquery = "%s; DELETE FROM data_object"\n' "$mapping" >>tether.toml
refused "tether.toml sets [import] query; a committed file arrives with every clone and must not choose SQL that runs with your DSN. Move it to .tether/secrets.toml under [import], or pass --query"
refused "tether.toml sets [import] query;" --dry-run
# an explicit --query or --table is not the committed one
ok tether import "$db" --table registry --dry-run
# a CSV source never runs SQL, so the committed query does not matter to it
printf 'key,kind,uri\nc,memory,sysc\n' >"$TMP/c.csv"
ok tether import "$TMP/c.csv" --dry-run

# the default query from secrets.toml
printf '[import]\nquery = "%s"\n' "$mapping" >.tether/secrets.toml
chmod 600 .tether/secrets.toml
ok tether import "$db"
eq "$OUT" "added 1, updated 0, removed 0, unchanged 0
  added   zarr/run-041
run \`tether commit\` to record their states"
grep -qx 'uri = "sys41"' .tether/objects/zarr/run-041.toml || fail "manifest: $(cat .tether/objects/zarr/run-041.toml)"
ok tether import "$db" --table registry --sync
eq "$OUT" "added 2, updated 0, removed 1, unchanged 0
  added   db
  added   db/two
  removed zarr/run-041
run \`tether commit\` to record their states"
grep -qx 'pin = "record"' .tether/objects/db.toml || fail "policy_pin: $(cat .tether/objects/db.toml)"
ok tether commit -m "from sqlite"
eq "$(db_dump)" "$data" "the database after the imports"
