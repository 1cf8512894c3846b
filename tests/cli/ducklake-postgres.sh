#!/usr/bin/env bash
# The same DuckLake catalog kept in PostgreSQL (a throwaway cluster; the catalog copied there
# with native types by tests/ducklake/load-pg) reads the same as in SQLite: the same state,
# history and diff. A new snapshot (the catalog copied again) shows as modified. The conninfo
# carries no password, and a locator with one is refused (manifests are committed).
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${TETHER_TEST_PG_CONNINFO:-}" ]; then exec "$here/../pg/with-cluster" bash "$0" "$@"; fi
. "$here/lib.sh"
: "${DUCKLAKE_LAKE:?DUCKLAKE_LAKE must point at the built ducklake-lake tool}"
lake() { "$DUCKLAKE_LAKE" "$@"; }
load_pg() { "$here/../ducklake/load-pg" "$TMP/lake.db" lake_cli --replace; }
lake create "$TMP/lake.db" >/dev/null
lake create-table "$TMP/lake.db" t >/dev/null
lake insert "$TMP/lake.db" t 3 >/dev/null
conninfo=$(load_pg)
new_dataset
ok tether add sq "ducklake:sqlite:$TMP/lake.db" --kind ducklake
ok tether add pg "ducklake:postgres:$conninfo" --kind ducklake
ok tether commit -m first
eq "$(sed -n '/^\[state\]/,$p' .tether/objects/pg.toml)" "$(sed -n '/^\[state\]/,$p' .tether/objects/sq.toml)" "the states"

lake insert "$TMP/lake.db" t 5000 >/dev/null
lake drop "$TMP/lake.db" t >/dev/null
load_pg >/dev/null
ok tether status --snapshot
out_matches '^ +modified  pg  \[ducklake/addressable\]$'
out_matches '^ +modified  sq  \[ducklake/addressable\]$'
ok tether commit -m second
eq "$(sed -n '/^\[state\]/,$p' .tether/objects/pg.toml)" "$(sed -n '/^\[state\]/,$p' .tether/objects/sq.toml)" "the states"
ok tether diff HEAD~1 HEAD --content --json
pg_diff=$(json 'j[0]["key"] + " " + json.dumps(j[0]["detail"], sort_keys=True)')
sq_diff=$(json 'j[1]["key"] + " " + json.dumps(j[1]["detail"], sort_keys=True)')
[[ $pg_diff == "pg {"*'"main.t"'* ]] || fail "pg diff: $pg_diff"
eq "${pg_diff#pg }" "${sq_diff#sq }" "the diffs"
ok tether log pg
pg_log=$OUT
ok tether log sq
eq "$pg_log" "$OUT" "the histories"
ok tether verify

fails 1 tether add secret "ducklake:postgres:$conninfo password=hunter2" --kind ducklake
err_has "carries a Postgres password"
out_lacks hunter2
[ ! -e .tether/objects/secret.toml ] || fail "a locator with a password was registered"
