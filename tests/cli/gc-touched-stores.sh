#!/usr/bin/env bash
# The touched-store index (`tether-touched.jsonl` in the git dir) lists each store this clone
# wrote refs into (a pin or a fork), once per dataset and store. `gc --delete-stores` joins
# the stores in it that no manifest names any more (their bookmark deleted by hand) to the
# planning: this dataset's pins there that this clone made are released, and a store with
# nothing of this dataset's left in it is `forget-touched`. A store a manifest names, and one
# holding a pin this clone did not make, stay in the index. A torn line is skipped.
. "$(dirname "$0")/lib.sh"
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
index="$(git rev-parse --git-common-dir)/tether-touched.jsonl"
indexed() { python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line); print(r["key"], r["kind"], r["dataset_id"] == sys.argv[2], r["locator"]["uri"])
    except Exception: pass' "$index" "$id" | sort | tr '\n' ';'; }
tags() { git -C "$1" tag -l "tether.$id.*" | sort | tr '\n' ' '; }

new_code_repo "$TMP/data"
new_code_repo "$TMP/code"
new_code_repo "$TMP/other"
ok tether add data ../data --kind git
ok tether commit -m "data on the trunk"
[ -n "$(tags "$TMP/data")" ] || fail "the trunk commit pinned nothing in data"
eq "$(indexed)" "data git True $TMP/data;" "a pin records its store"
code_commit "$TMP/data" main.py 'print("v2")' >/dev/null
ok tether commit -m "data v2"
eq "$(git -C "$TMP/data" tag -l "tether.$id.*" | wc -l | tr -d ' ')" "2" "two commits, two pins in data"

ok tether new -b feat
ok tether add code ../code --kind git
ok tether add other ../other --kind git
ok tether commit -m "code and other on feat"
eq "$(indexed)" "code git True $TMP/code;data git True $TMP/data;other git True $TMP/other;" \
   "each store once, however many pins"
eq "$(grep -c . "$index")" "3" "a store already indexed is not appended again"

# A pin of this dataset that this clone did not make (as another clone's would be).
git -C "$TMP/other" tag "tether.$id.0123456789abcdef"
echo '{"dataset_id": "'"$id"'", "kind": "git", "key": ' >> "$index"   # torn line: skipped

# The bookmark deleted by hand: no manifest names code or other any more.
ok tether new main
git branch -D -q feat
git reflog expire --expire=now --all

ok tether gc
out_lacks "$TMP/code"
[ -n "$(tags "$TMP/code")" ] || fail "gc without --delete-stores released code's pins"

remember_state
ok tether gc --delete-stores
out_matches "^ +unpin  code +\[git\] tether\.$id\.[0-9a-f]{16}"
out_matches "^ +forget-touched  code +\[git\] $TMP/code  no manifest names it and nothing of this dataset's is left in it$"
out_matches "^ +keep-pin  other +\[git\] tether\.$id\.0123456789abcdef"
out_has "other ($TMP/other): no manifest names it, but it keeps tether.$id.0123456789abcdef; it stays in the touched-store index"
out_lacks "forget-touched  data"
out_lacks "forget-touched  other"
unchanged "gc --delete-stores is a dry run"

ok tether gc --delete-stores --no-dry-run --json
eq "$(json 'j["forgotten_touched"]')" "['code']"
eq "$(json 'len(j["unpinned"]["git"])')" "2" "code's pin and other's own"
eq "$(tags "$TMP/code")" "" "code's pins are released"
eq "$(tags "$TMP/other")" "tether.$id.0123456789abcdef " "the pin this clone did not make stays"
[ -n "$(tags "$TMP/data")" ] || fail "the trunk's pin in data was released"
eq "$(indexed)" "data git True $TMP/data;other git True $TMP/other;" "code leaves the touched-store index"

ok tether gc --delete-stores --no-dry-run
out_lacks "forgot"

# --release-foreign lets the last pin go; other then leaves the index too.
ok tether gc --delete-stores --release-foreign --no-dry-run
out_has "forgot 1 touched store(s) no manifest names, with nothing of this dataset's left in them"
eq "$(tags "$TMP/other")" ""
eq "$(indexed)" "data git True $TMP/data;"
