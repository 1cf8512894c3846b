#!/usr/bin/env bash
# remove deletes the manifest and the directories it leaves empty, keeps siblings, and an
# unknown key is refused.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add a/b/c "$TMP/d" --kind file
ok tether add a/keep "$TMP/d" --kind file
ok tether add top "$TMP/d" --kind file
ok tether remove a/b/c
eq "$OUT" "removed a/b/c"
[ ! -e .tether/objects/a/b/c.toml ] || fail "manifest kept"
[ ! -e .tether/objects/a/b ] || fail "empty directory a/b kept"
[ -f .tether/objects/a/keep.toml ] || fail "sibling removed"
ok tether remove a/keep
[ ! -e .tether/objects/a ] || fail "empty directory a kept"
[ -d .tether/objects ] || fail "objects/ itself removed"
grep -q '"command":"remove"' <<<"$(tail -n 2 .tether/ops.jsonl)" || fail "no remove op logged"

remember_state
fails 1 tether remove nothere
eq "$ERR" "error: no such object: nothere"
unchanged
ok tether status
out_matches '^ +new  top  '
out_lacks 'a/b/c'
