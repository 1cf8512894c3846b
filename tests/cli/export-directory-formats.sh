#!/usr/bin/env bash
# `tether export DIR --format csv|jsonl`: schema.json plus one file per table, read back with
# Python's csv and json modules and compared cell by cell with the SQLite export of the same
# history (sqlite3 -json), including a commit message with commas, quotes, newlines and
# non-ASCII text.
. "$(dirname "$0")/lib.sh"
registry_history

ok tether export t.sqlite --listings
for fmt in csv jsonl; do
  ok tether export "dump-$fmt" --format $fmt --listings
  out_has "exported 10 file(s) to dump-$fmt ($fmt)"
  eq "$(cd "dump-$fmt" && ls | tr '\n' ' ')" \
    "commit_parents.$fmt commits.$fmt listing_entries.$fmt listings.$fmt object_states.$fmt objects.$fmt refs.$fmt schema.json tether_meta.$fmt workspace.$fmt " \
    "the $fmt files"
done

for t in tether_meta commits commit_parents refs objects object_states listings listing_entries workspace; do
  sqlite3 -json t.sqlite "SELECT * FROM $t" >"sq-$t.json"
done
python3 - <<'PY' || fail "the directory formats differ from the SQLite export"
import csv, datetime, json, os
schema = json.load(open("dump-jsonl/schema.json"))
assert schema["schema_version"] == 3
names = ["tether_meta", "commits", "commit_parents", "refs", "objects", "object_states", "listings", "listing_entries", "workspace"]
assert list(schema["tables"]) == names, list(schema["tables"])
assert schema["views"] == ["objects_head", "object_pins"]
assert schema["tables"]["objects"]["primary_key"] == ["commit_id", "key"]
types = {t: {c["name"]: c["type"] for c in schema["tables"][t]["columns"]} for t in names}
assert types["objects"]["locator_json"] == "json" and types["objects"]["recoverable"] == "bool"
assert types["commits"]["committed_at"] == "timestamp" and types["commit_parents"]["position"] == "int"
assert open("dump-csv/schema.json").read() == open("dump-jsonl/schema.json").read()

def sqlite_rows(t):
    text = open(f"sq-{t}.json").read().strip()
    return json.loads(text) if text else []

for t in names:
    cols = [c["name"] for c in schema["tables"][t]["columns"]]
    want = sqlite_rows(t)
    key = lambda r: json.dumps([r[c] for c in schema["tables"][t]["primary_key"]])
    # JSONL: keys sorted, JSON columns nested, bools true/false, nulls null.
    lines = [l for l in open(f"dump-jsonl/{t}.jsonl", encoding="utf-8").read().split("\n") if l]
    got = [json.loads(l) for l in lines]
    for l, r in zip(lines, got):
        assert list(r) == sorted(cols), (t, list(r))
    assert len(got) == len(want), (t, len(got), len(want))
    # CSV: a header in table order, JSON as compact text, bools True/False, null empty.
    with open(f"dump-csv/{t}.csv", newline="", encoding="utf-8") as f:
        rd = csv.reader(f)
        header = next(rd)
        assert header == cols, (t, header)
        csv_rows = [dict(zip(header, row)) for row in rd]
    assert len(csv_rows) == len(want), (t, len(csv_rows), len(want))
    gj = {key(r): r for r in got}
    gc = {key(r): r for r in csv_rows}
    for w in want:
        k = key(w)
        j, c = gj[k], gc[k]
        # The export time is each run's own clock (to the second): the three exports may
        # straddle a second, so it is compared as a timestamp, not as a value.
        if t == "tether_meta" and w.get("key") == "exported_at":
            for v in (j["value"], c["value"], w["value"]):
                datetime.datetime.fromisoformat(v)
            continue
        for col in cols:
            ty, v = types[t][col], w[col]
            if ty == "json":
                assert (j[col] is None) if v is None else j[col] == json.loads(v), (t, col, j[col], v)
                assert isinstance(j[col], (dict, list, type(None))), (t, col, j[col])
                assert c[col] == ("" if v is None else v), (t, col, c[col], v)
                if v is not None:
                    assert json.loads(c[col]) == json.loads(v)
            elif ty == "bool":
                assert j[col] is (None if v is None else bool(v)), (t, col, j[col], v)
                assert c[col] == ("" if v is None else ("True" if v else "False")), (t, col, c[col])
            elif ty == "int":
                assert j[col] == v, (t, col, j[col], v)
                assert c[col] == ("" if v is None else str(v)), (t, col)
            else:
                assert j[col] == v, (t, col, j[col], v)
                assert c[col] == ("" if v is None else v), (t, col, c[col], v)

msgs = [r["message"] for r in sqlite_rows("commits")]
assert any('"quoted"\nsecond line: café 日本' in m for m in msgs), msgs
objs = [json.loads(l) for l in open("dump-jsonl/objects.jsonl") if l.strip()]
assert len(objs) == 6 and all(isinstance(o["locator_json"], dict) for o in objs)
assert sum(1 for _ in open("dump-jsonl/listing_entries.jsonl")) >= 3
PY

# Re-exporting into the same directory replaces the files; a file where a directory belongs
# is refused with nothing written.
ok tether export dump-csv --format csv --rev HEAD
eq "$(python3 -c 'import csv; print(len(list(csv.reader(open("dump-csv/commits.csv", newline="")))))')" 2 "header and one commit"
touch afile
fails 1 tether export afile --format jsonl
err_has "afile is a file"
[ ! -s afile ] || fail "the file was written to"
