#!/usr/bin/env bash
# `tether import` from .csv and .jsonl: a CSV (CRLF, quoted cells with commas, doubled quotes
# and a newline) registers a memory object and a file object (its relative path made
# absolute, the missing policies taken from [defaults]); extra columns are named in one note.
# A JSONL changes one locator (update), leaves one unchanged, adds one at a native state
# (`at`); --sync removes what it does not list. Plans print with --dry-run, save with --plan
# and apply with --from-plan; a plan made before a manual add is stale. `tether undo`
# restores the manifests an import changed. Nothing records a state until `tether commit`.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
sed -i 's/^pin = "native"$/pin = "record"/' tether.toml
mkdir -p "$TMP/plate" && echo x >"$TMP/plate/a.bin"
note='note: export/publish/import are experimental (tether.experimental.registry): the schema may change before 0.2'

printf 'key,kind,uri,policy_file,policy_pin,owner\r\n' >"$TMP/objects.csv"
printf 'db,memory,sys1,,native,"Smith, ""Al""\r\nand co"\r\n' >>"$TMP/objects.csv"
printf ' raw/plate ,file,../../plate,versioned,,bob\r\n' >>"$TMP/objects.csv"
mkdir -p sub
cd sub  # relative paths resolve against the current directory, as with `tether add`

remember_state
ok tether import "$TMP/objects.csv" --dry-run
unchanged "--dry-run"
eq "$ERR" "$note"
eq "$OUT" "plan: import (2 write(s))
                 add  db         [memory] sys1  register
                 add  raw/plate  [file] $TMP/plate  register
                      ignored columns: owner"
ok tether import "$TMP/objects.csv" --dry-run --json
eq "$ERR" "" "--json prints no note"
eq "$(json '[j["command"], j["context"]["rows"], j["context"]["sync"], [p["kind"] for p in j["preconditions"]]]')" \
  "['import', 2, False, ['manifest_hash']]"
eq "$(json 'j["actions"][1]["params"]')" "{'locator': {'uri': '$TMP/plate'}, 'policy': {'file': 'versioned', 'pin': 'record'}}"

ok tether import "$TMP/objects.csv"
eq "$OUT" "added 2, updated 0, removed 0, unchanged 0
  added   db
  added   raw/plate
run \`tether commit\` to record their states"
err_has "$note"
err_has "note: ignored columns: owner"
cd "$DS"
grep -qx "uri = \"$TMP/plate\"" .tether/objects/raw/plate.toml || fail "path not absolutised: $(cat .tether/objects/raw/plate.toml)"
grep -qx 'file = "versioned"' .tether/objects/raw/plate.toml || fail "policy_file"
grep -qx 'pin = "record"' .tether/objects/raw/plate.toml || fail "[defaults] pin not applied"
grep -qx 'pin = "native"' .tether/objects/db.toml || fail "policy_pin"
grep -q '^\[state\]' .tether/objects/db.toml && fail "import recorded a state"
[ ! -e "$TETHER_MEMORY_STORE" ] || fail "import contacted the store"
ok tether ops
out_matches 'import +added 2, updated 0, removed 0'
ok tether commit -m "imported"
cd sub
ok tether import "$TMP/objects.csv"
eq "$OUT" "added 0, updated 0, removed 0, unchanged 2"
cd "$DS"

# JSONL: db moves to sys2, raw/plate unchanged, db/at starts detached at sys3:s1
mem_edit sys3 advance >/dev/null
mem_edit sys3 advance >/dev/null
cat >"$TMP/objects.jsonl" <<JSONL
{"key": "db", "kind": "memory", "locator_json": {"uri": "sys2", "branch": null}, "uri": "ignored-when-locator_json-has-one", "policy_pin": "native"}

{"key": "raw/plate", "kind": "file", "uri": "$TMP/plate", "policy_file": "versioned"}
{"key": "db/at", "kind": "memory", "uri": "sys3", "at": "sys3:s1", "policy_pin": "native"}
JSONL
ok tether import "$TMP/objects.jsonl" --dry-run
eq "$OUT" "plan: import (2 write(s))
              update  db     [memory] sys2  locator changed; committed state kept
                 add  db/at  [memory] sys3  register
                      raw/plate: unchanged"
ok tether import "$TMP/objects.jsonl" --json
eq "$(json 'j == {"added": ["db/at"], "updated": ["db"], "removed": [], "unchanged": ["raw/plate"]}')" "True" "$OUT"
grep -qx 'uri = "sys2"' .tether/objects/db.toml || fail "db locator: $(cat .tether/objects/db.toml)"
grep -q '^\[state\]' .tether/objects/db.toml && fail "another system kept the old system's state"
grep -qx 'at = "sys3:s1"' .tether/objects/db/at.toml || fail "at: $(cat .tether/objects/db/at.toml)"
ok tether commit -m "moved"
grep -qx 'snapshot_id = "sys3:s1"' .tether/objects/db/at.toml || fail "db/at is not at s1: $(cat .tether/objects/db/at.toml)"

# a policy-only update keeps the committed state
sed -i 's/"key": "db", "kind": "memory", "locator_json": {"uri": "sys2", "branch": null}, "uri": "[^"]*", "policy_pin": "native"/"key": "db", "kind": "memory", "uri": "sys2", "policy_pin": "record"/' "$TMP/objects.jsonl"
ok tether import "$TMP/objects.jsonl" --dry-run
out_matches '^ +update  db  \[memory\] sys2  policy changed; committed state kept$'
state_before=$(sed -n '/^\[state\]/,/^$/p' .tether/objects/db.toml)
ok tether import "$TMP/objects.jsonl"
eq "$(sed -n '/^\[state\]/,/^$/p' .tether/objects/db.toml)" "$state_before" "the state after a policy-only update"

# --sync removes what the source does not list; a saved plan applies, a stale one does not
grep -v raw/plate "$TMP/objects.jsonl" >"$TMP/less.jsonl"
ok tether import "$TMP/less.jsonl" --sync --plan "$TMP/sync.plan"
err_has "plan written to $TMP/sync.plan"
out_matches '^ +remove  raw/plate  \[file\]   not listed by the source \(sync\)$'
[ -f .tether/objects/raw/plate.toml ] || fail "--plan applied the plan"
fails 1 tether import "$TMP/less.jsonl" --from-plan "$TMP/sync.plan" --dry-run
err_has "error: --from-plan applies a saved plan; it cannot be combined with --dry-run or --plan"
fails 1 tether commit --from-plan "$TMP/sync.plan"
err_has "is a 'import' plan, expected 'commit'"
before_import=$(tree_state .tether/objects)
ok tether import "$TMP/less.jsonl" --from-plan "$TMP/sync.plan"
eq "$OUT" "added 0, updated 0, removed 1, unchanged 2
  removed raw/plate"
[ ! -e .tether/objects/raw ] || fail "raw/plate's manifest kept"

# undo restores the manifests
ok tether undo
eq "$(tree_state .tether/objects)" "$before_import" "the manifests after undo"
ok tether status
out_matches 'raw/plate'

ok tether import "$TMP/less.jsonl" --sync --plan "$TMP/stale.plan"
ok tether add manual sys9 --kind memory
remember_state
fails 1 tether import "$TMP/less.jsonl" --from-plan "$TMP/stale.plan"
err_has "manifests changed since the plan was made; re-run the plan"
unchanged "a stale plan"
