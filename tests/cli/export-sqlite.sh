#!/usr/bin/env bash
# `tether export` to SQLite, queried with the real sqlite3 client: every reachable commit, the
# objects at each, the distinct states and their first commits, refs, the two views, the
# seed's objects_head query and registry join, hashes recomputed independently (Python's
# hashlib blake2b), a revision subset with listings and workspace rows, and --append.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
q() { sqlite3 "$@"; }

ok tether add db sys1 --kind memory
mkdir -p "$TMP/plate" && printf abcd >"$TMP/plate/a.bin"
ok tether add raw/plate "$TMP/plate" --kind file --file versioned
ok tether commit -m baseline
c1=$(git rev-parse HEAD)
mem_edit sys1 advance >/dev/null
ok tether commit -m "db moved"
c2=$(git rev-parse HEAD)
printf xy >"$TMP/plate/b.bin"
ok tether commit -m "plate moved"
c3=$(git rev-parse HEAD)

ok tether export t.sqlite
err_has "note: export/publish/import are experimental (tether.experimental.registry): the schema may change before 0.2"
out_has "exported 1 file(s) to t.sqlite (sqlite)"
out_matches '^  objects                6 row\(s\)$'
out_matches '^  listing_entries        0 row\(s\)$'
eq "$(grep -c 'row(s)$' <<<"$OUT")" 9 "one count line per table"
all=$(git rev-list --all | sort)
eq "$(q t.sqlite 'SELECT commit_id FROM commits ORDER BY commit_id')" "$all" "every reachable commit"
eq "$(q t.sqlite "SELECT message FROM commits WHERE commit_id = '$c2'")" "db moved" "the message"
eq "$(q t.sqlite 'SELECT COUNT(*) FROM objects')" 6 "2 objects at each of 3 tether commits"
eq "$(q t.sqlite "SELECT parent_id || ' ' || position FROM commit_parents WHERE commit_id = '$c3'")" "$c2 0" "c3's parent"
eq "$(q t.sqlite "SELECT parent_id FROM commit_parents WHERE commit_id = '$c2'")" "$c1" "c2's parent"

# object_states: 2 file states, 2 memory states; the memory ones first seen at c1 and c2 and
# pinned, the file ones not
eq "$(q t.sqlite 'SELECT kind FROM object_states' | tr '\n' ' ')" "file file memory memory " "the distinct states"
eq "$(q t.sqlite "SELECT first_commit_id FROM object_states WHERE kind = 'memory' ORDER BY first_commit_id" | sort)" \
  "$(printf '%s\n' "$c1" "$c2" | sort)" "the memory states' first commits"
eq "$(q t.sqlite "SELECT first_commit_id FROM object_states WHERE kind = 'file'" | sort)" \
  "$(printf '%s\n' "$c1" "$c3" | sort)" "the file states' first commits"
eq "$(q t.sqlite "SELECT COUNT(*) FROM object_states WHERE kind = 'memory' AND pin_id IS NOT NULL")" 2 "memory states are pinned"
eq "$(q t.sqlite "SELECT COUNT(*) FROM object_states WHERE kind = 'file' AND pin_id IS NULL")" 2 "file states are not"

# refs and views
eq "$(q t.sqlite "SELECT commit_id FROM refs WHERE kind = 'head'")" "$c3" "the head ref"
eq "$(q t.sqlite "SELECT commit_id FROM refs WHERE kind = 'branch' AND name = 'main'")" "$c3" "the main branch"
eq "$(q t.sqlite 'SELECT key FROM objects_head ORDER BY key' | tr '\n' ' ')" "db raw/plate " "objects_head"
eq "$(q t.sqlite 'SELECT kind, commits FROM object_pins ORDER BY commits' | tr '\n' ' ')" "memory|1 memory|2 " "object_pins"

# tether_meta
eq "$(q t.sqlite "SELECT value FROM tether_meta WHERE key = 'schema_version'")" 3
eq "$(q t.sqlite "SELECT value FROM tether_meta WHERE key = 'vcs'")" git
eq "$(q t.sqlite "SELECT value FROM tether_meta WHERE key = 'head'")" "$c3"
eq "$(q t.sqlite 'SELECT key FROM tether_meta ORDER BY rowid' | tr '\n' ' ')" "schema_version exported_at head vcs tether_version "

# The seed's query, as the user guide runs it.
run sqlite3 t.sqlite "SELECT key, pin_ref, state_json FROM objects_head"
[ "$RC" -eq 0 ] || fail "the seed's objects_head query failed"
ref=$(sed -nE 's/^ref = "(.*)"$/\1/p' .tether/objects/db.toml)
out_has "db|$ref|{\"snapshot_id\":\"sys1:s1\"}"
out_matches '^raw/plate\|\|\{"count":2,"digest":"[0-9a-f]+","size":6,"type":"dir"\}$'

# Columns parse; hashes have the documented sizes and are what an independent blake2b gives:
# identity_hash = B(cb(identity), 16), state_hash = B(cb(content state), 16), and
# manifest_hash = B(cb([key, canonical]) per key, 32), the same as `tether status`.
q -json t.sqlite "SELECT * FROM objects WHERE commit_id = '$c3' ORDER BY key" >rows.json
q -json t.sqlite "SELECT * FROM commits WHERE commit_id = '$c3'" >commit.json
ok tether status --no-snapshot --json
status_hash=$(json 'j["manifest_hash"]')
python3 - "$status_hash" <<'PY' || fail "hash cross-check"
import hashlib, json, sys
def B(parts, size):
    h = hashlib.blake2b(digest_size=size)
    for p in parts:
        b = p.encode()
        h.update(len(b).to_bytes(8, "big")); h.update(b)
    return h.hexdigest()
cj = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
rows = json.load(open("rows.json"))
for r in rows:
    loc = json.loads(r["locator_json"]); assert isinstance(loc, dict), r
    ident = json.loads(r["identity_json"]); state = json.loads(r["state_json"])
    assert r["identity_hash"] == B([cj(ident)], 16), r
    assert r["state_hash"] == B([cj(state)], 16), r
    assert len(r["identity_hash"]) == 32 and len(r["state_hash"]) == 32
    assert r["uri"] == loc["uri"]
    assert r["recoverable"] in (0, 1)
db = next(r for r in rows if r["key"] == "db")
assert db["pin_ref"] == "tether." + db["pin_id"], db
commit = json.load(open("commit.json"))[0]
assert len(commit["manifest_hash"]) == 64
assert commit["manifest_hash"] == sys.argv[1], (commit["manifest_hash"], sys.argv[1])
PY

# The seed's registry join: a catalog keyed by URI and the runs that read a commit.
q t.sqlite "CREATE TABLE catalog (uri TEXT, name TEXT); INSERT INTO catalog VALUES ('sys1', 'the db');
  CREATE TABLE runs (run_id INTEGER, tether_rev TEXT); INSERT INTO runs VALUES (1, '$c1'), (2, '$c3');"
joined=$(q t.sqlite "SELECT r.run_id, c.name, json_extract(o.state_json, '\$.snapshot_id') AS snapshot_id, o.pin_ref
  FROM runs r JOIN objects o ON o.commit_id = r.tether_rev AND o.kind = 'memory' JOIN catalog c ON c.uri = o.uri ORDER BY r.run_id")
eq "$(cut -d'|' -f1-3 <<<"$joined" | tr '\n' ' ')" "1|the db|sys1:s0 2|the db|sys1:s1 " "the registry join"

# A replacing export leaves no temporary file and replaces what was there (the tables we
# added above are gone).
ok tether export t.sqlite --rev "$c1"
eq "$(q t.sqlite "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('catalog', 'runs')")" 0 "replaced, not merged"
eq "$(q t.sqlite 'SELECT COUNT(*) FROM commits')" 1 "one revision"
[ -z "$(find . -maxdepth 1 -name '*.tmp*' -o -maxdepth 1 -name '.t.sqlite*')" ] || fail "a temporary file was left: $(ls -a)"

# --append: idempotent, then incremental; never more than one head ref.
ok tether export all.sqlite
n=$(q all.sqlite 'SELECT COUNT(*) FROM objects')
ok tether export all.sqlite --append
eq "$(q all.sqlite 'SELECT COUNT(*) FROM objects')" "$n" "append of the same history"
eq "$(q all.sqlite "SELECT COUNT(*) FROM refs WHERE kind = 'head'")" 1 "one head ref"
mem_edit sys1 advance >/dev/null
ok tether commit -m "db again"
c4=$(git rev-parse HEAD)
ok tether export all.sqlite --append
eq "$(q all.sqlite 'SELECT COUNT(*) FROM objects')" "$((n + 2))" "the new commit's objects"
eq "$(q all.sqlite "SELECT commit_id FROM refs WHERE kind = 'head'")" "$c4" "the head ref moved"
ok tether export all.sqlite --rev "$c1"
eq "$(q all.sqlite 'SELECT COUNT(*) FROM commits')" 1 "without --append the file is replaced"

# A revision subset with listings and this checkout's working refs (after an eager fork).
ok tether new -b work --eager
ok tether export sub.sqlite --rev "$c1" --listings --workspace
eq "$(q sub.sqlite 'SELECT COUNT(*) FROM commits')" 1
eq "$(q sub.sqlite 'SELECT COUNT(*) FROM objects')" 2
eq "$(q sub.sqlite "SELECT COUNT(*) FROM refs WHERE commit_id != '$c1'")" 0 "refs only at the exported commit"
eq "$(q sub.sqlite "SELECT COUNT(*) FROM refs WHERE kind = 'head'")" 0 "HEAD is not exported"
eq "$(q sub.sqlite 'SELECT COUNT(*) FROM listings')" 1 "c1's listing"
eq "$(q sub.sqlite 'SELECT path, size FROM listing_entries')" "a.bin|4" "c1's one file"
eq "$(q sub.sqlite "SELECT entries FROM listings")" 1
ws=$(sed -nE 's/^workspace_id = "(.*)"$/\1/p' .tether/workspace.toml)
eq "$(q sub.sqlite "SELECT workspace_id FROM workspace GROUP BY workspace_id")" "$ws" "the workspace id"
[[ "$(q sub.sqlite "SELECT working_ref FROM workspace WHERE key = 'db'")" == tether.ws.* ]] || fail "db's working ref"
eq "$(q sub.sqlite "SELECT working_ref IS NULL FROM workspace WHERE key = 'raw/plate'")" 1 "a file object is not forkable"

# --no-all-history: HEAD only. --json: the result as JSON, no note.
ok tether export head.sqlite --no-all-history --json
eq "$ERR" "" "no note under --json"
eq "$(json 'j["head"]')" "$c4"
eq "$(json 'j["rows"]["commits"]')" 1
eq "$(json 'j["format"] + " " + j["path"]')" "sqlite head.sqlite"

# Refusals: a bad format, --append on a directory format, an unknown revision.
fails 1 tether export x --format xlsx
err_has "error: --format must be one of sqlite, parquet, csv, jsonl"
fails 1 tether export d --format csv --append
err_has "--append"
fails 1 tether export r.sqlite --rev no-such-rev
err_has "no-such-rev"
[ ! -e r.sqlite ] || fail "a failed export left a file"
