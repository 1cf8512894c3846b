#!/usr/bin/env bash
# export -> edit in SQL -> import --sync -> commit. An unmodified export imported from
# objects_head with the canonical columns is an empty plan (only `<key>: unchanged` notes, no
# ignored-column note); setting policy_pin = 'record' for one key in sqlite3 gives exactly that
# update, and the commit records it.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add db sys1 --kind memory
ok tether add db/two sys2 --kind memory --branch main
mkdir -p "$TMP/plate" && printf abcd >"$TMP/plate/a.bin"
ok tether add raw/plate "$TMP/plate" --kind file --file versioned
ok tether commit -m baseline
query="SELECT key, kind, locator_json, policy_file, policy_pin FROM objects_head"

ok tether export "$TMP/snap.sqlite"
remember_state
ok tether import "$TMP/snap.sqlite" --sync --query "$query" --dry-run
eq "$OUT" "  import: nothing to do
                      db: unchanged
                      db/two: unchanged
                      raw/plate: unchanged"
ok tether import "$TMP/snap.sqlite" --sync --query "$query" --dry-run --json
eq "$(json '[j["context"]["rows"], j["notes"], j["actions"]]')" \
  "[3, ['db: unchanged', 'db/two: unchanged', 'raw/plate: unchanged'], []]"
unchanged "the dry runs"
ok tether import "$TMP/snap.sqlite" --sync --query "$query"
eq "$OUT" "added 0, updated 0, removed 0, unchanged 3"

sqlite3 "$TMP/snap.sqlite" "UPDATE objects SET policy_pin = 'record' WHERE key = 'db/two'"
ok tether import "$TMP/snap.sqlite" --sync --query "$query" --dry-run
eq "$OUT" "plan: import (1 write(s))
              update  db/two  [memory] sys2  policy changed; committed state kept
                      db: unchanged
                      raw/plate: unchanged"
ok tether import "$TMP/snap.sqlite" --sync --query "$query"
eq "$OUT" "added 0, updated 1, removed 0, unchanged 2
  updated db/two
run \`tether commit\` to record their states"
grep -qx 'pin = "record"' .tether/objects/db/two.toml || fail "db/two's policy: $(cat .tether/objects/db/two.toml)"
ok tether commit -m "db/two recorded"
grep -qx 'pin = "record"' <<<"$(git show HEAD:.tether/objects/db/two.toml)" || fail "the committed manifest lacks the policy"
git diff --quiet HEAD -- .tether || fail "manifests dirty after the commit"

# the new head exported again imports as an empty plan
ok tether export "$TMP/snap2.sqlite"
ok tether import "$TMP/snap2.sqlite" --sync --query "$query" --dry-run
eq "$(head -1 <<<"$OUT")" "  import: nothing to do"
