#!/usr/bin/env bash
# `tether import` from PostgreSQL (a throwaway cluster): a mapping query over `data_object`,
# --table over a registry whose locator_json is jsonb (it arrives parsed). The query runs as
# one statement in a read-only transaction: a query committed in tether.toml never runs (the
# data unchanged); the same text from secrets.toml fails with "multiple commands"; an
# UPDATE ... RETURNING fails with "read-only transaction"; a clean SELECT in secrets.toml
# works. A DSN whose port refuses the connection is a clear error naming host and port that
# never prints the password.
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${TETHER_TEST_PG_CONNINFO:-}" ]; then exec "$here/../pg/with-cluster" bash "$0" "$@"; fi
. "$here/lib.sh"
use_memory_store
new_dataset
: "${PGHOST:?}" "${PGPORT:?}" "${PGUSER:?}" "${PGDATABASE:?}"
dsn="postgresql://$PGUSER@/$PGDATABASE?host=$PGHOST&port=$PGPORT"
psql -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE data_object (name text, type text, object_uri text);
INSERT INTO data_object VALUES ('run-041', 'IcechunkStore', 'sys41'), ('notes', 'Other', 'x');
CREATE TABLE registry (key text, kind text, locator_json jsonb, policy_pin text);
INSERT INTO registry VALUES ('db', 'memory', '{"uri": "sys1", "branch": "main", "n": 3}', 'record'),
                            ('db/two', 'memory', '{"uri": "sys2"}', NULL);
SQL
data() { psql -At -c "SELECT name || ':' || type || ':' || object_uri FROM data_object ORDER BY 1"; }
names=$(data)
mapping="SELECT 'zarr/' || name AS key, 'memory' AS kind, object_uri AS uri FROM data_object WHERE type = 'IcechunkStore'"

ok tether import "$dsn" --query "$mapping" --dry-run
eq "$OUT" "plan: import (1 write(s))
                 add  zarr/run-041  [memory] sys41  register"
ok tether import "$dsn" --table registry --dry-run --json
eq "$(json '[(a["key"], a["params"]) for a in j["actions"]]')" \
  "[('db', {'locator': {'branch': 'main', 'n': 3, 'uri': 'sys1'}, 'policy': {'file': 'immutable', 'pin': 'record'}}), ('db/two', {'locator': {'uri': 'sys2'}, 'policy': {'file': 'immutable', 'pin': 'native'}})]"
eq "$(json 'j["notes"]')" "[]"
remember_state
fails 1 tether import "$dsn"
err_has "error: give exactly one of --table or --query for a SQL source"
unchanged

# a query committed in tether.toml never runs, not even for a dry run
evil="$mapping; UPDATE data_object SET name = 'pwned'; COMMIT"
cp tether.toml "$TMP/tether.toml.orig"
printf '\n[import]\nquery = "%s"\n' "$evil" >>tether.toml
remember_state
fails 1 tether import "$dsn" --dry-run
err_has "error: tether.toml sets [import] query; a committed file arrives with every clone and must not choose SQL that runs with your DSN. Move it to .tether/secrets.toml under [import], or pass --query"
unchanged
eq "$(data)" "$names" "the data after the committed query"
cp "$TMP/tether.toml.orig" tether.toml

# the same text from secrets.toml is sent as one prepared statement: refused by the server
printf '[import]\nquery = "%s"\n' "$evil" >.tether/secrets.toml
chmod 600 .tether/secrets.toml
remember_state
fails 1 tether import "$dsn"
err_has "error: the import query failed: cannot insert multiple commands into a prepared statement"
unchanged
eq "$(data)" "$names" "the data after a multi-statement query"
fails 1 tether import "$dsn" --query "UPDATE data_object SET name = 'pwned' RETURNING name AS key, 'memory' AS kind, 'x' AS uri"
err_has "error: the import query failed: cannot execute UPDATE in a read-only transaction"
unchanged
eq "$(data)" "$names" "the data after UPDATE ... RETURNING"

# a clean SELECT in secrets.toml
printf '[import]\nquery = "SELECT key, kind, locator_json, policy_pin FROM registry"\n' >.tether/secrets.toml
ok tether import "$dsn"
eq "$OUT" "added 2, updated 0, removed 0, unchanged 0
  added   db
  added   db/two
run \`tether commit\` to record their states"
grep -qx 'n = 3' .tether/objects/db.toml || fail "the jsonb locator: $(cat .tether/objects/db.toml)"
ok tether commit -m "from postgres"
psql -q -c "UPDATE registry SET policy_pin = NULL WHERE key = 'db'"
ok tether import "$dsn" --query "SELECT key, kind, locator_json, policy_pin FROM registry" --dry-run
eq "$OUT" "plan: import (1 write(s))
              update  db  [memory] sys1  policy changed; committed state kept
                      db/two: unchanged"

# a closed port: host and port named, the password never printed
for bad in "postgresql://tether:hunter2@127.0.0.1:1/postgres" "postgres://127.0.0.1:1/postgres?password=hunter2&user=tether"; do
  remember_state
  fails 1 tether import "$bad" --table registry
  err_has "error: cannot connect to PostgreSQL (host 127.0.0.1 port 1): "
  grep -q hunter2 <<<"$OUT$ERR" && fail "the password was printed"
  unchanged
done
