#!/usr/bin/env bash
# `tether export DIR --format parquet`, read back by real DuckDB (npm @duckdb/node-api; the
# test is skipped without it) and compared row by row with the SQLite export of the same
# history read by sqlite3: every table, every cell, with the DuckDB types of the logical
# types (VARCHAR, BIGINT, BOOLEAN, TIMESTAMP WITH TIME ZONE).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "node is not installed: skipped"; exit 77; }
[ -d "$here/../ducklake/node_modules/@duckdb/node-api" ] || { echo "no DuckDB (tests/ducklake/setup-runtime): skipped"; exit 77; }
registry_history
ok tether new -b work --eager

ok tether export t.sqlite --listings --workspace
ok tether export pq --format parquet --listings --workspace
out_has "exported 10 file(s) to pq (parquet)"
for t in tether_meta commits commit_parents refs objects object_states listings listing_entries workspace; do
  [ -s "pq/$t.parquet" ] || fail "no pq/$t.parquet"
  sqlite3 -json t.sqlite "SELECT * FROM $t" >"sq-$t.json"
done
node "$here/../registry/dump-parquet.mjs" pq >duck.json || fail "DuckDB could not read the export"
python3 - <<'PY' || fail "the Parquet export differs from the SQLite export"
import datetime, json
schema = json.load(open("pq/schema.json"))
duck = json.load(open("duck.json"))
want_type = {"text": "VARCHAR", "json": "VARCHAR", "int": "BIGINT", "bool": "BOOLEAN", "timestamp": "TIMESTAMP WITH TIME ZONE"}
def micros(iso):
    d = datetime.datetime.fromisoformat(iso)
    return str((d - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(microseconds=1))
nonempty = 0
for t, d in schema["tables"].items():
    cols = [c["name"] for c in d["columns"]]
    types = {c["name"]: c["type"] for c in d["columns"]}
    assert duck["types"][t] == [[c, want_type[types[c]]] for c in cols], (t, duck["types"][t])
    text = open(f"sq-{t}.json").read().strip()
    want = json.loads(text) if text else []
    got = duck["rows"][t]
    assert len(got) == len(want), (t, len(got), len(want))
    nonempty += bool(want)
    for w, g in zip(want, got):  # both in insertion order
        if t == "tether_meta" and w.get("key") == "exported_at":
            # two exports, each stamped with its own time (they may straddle a second)
            assert g["key"] == "exported_at", g
            datetime.datetime.fromisoformat(w["value"]), datetime.datetime.fromisoformat(g["value"])
            continue
        for c in cols:
            v, x = w[c], g[c]
            if v is None:
                assert x is None, (t, c, x)
            elif types[c] == "timestamp":
                assert x == micros(v), (t, c, x, v)
            elif types[c] == "int":
                assert x == str(v), (t, c, x, v)
            elif types[c] == "bool":
                assert x is bool(v), (t, c, x, v)
            else:
                assert x == v, (t, c, x, v)
assert nonempty == 9, nonempty
PY
