#!/usr/bin/env bash
# A git object whose working tree has uncommitted changes: status says so; commit refuses to
# pin it and writes nothing (no tag, no manifest change, no dataset commit) unless the
# locator sets allow_dirty.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ok tether add code "$TMP/code" --kind git
ok tether commit -m first
code_commit "$TMP/code" main.py 'print("v2")' >/dev/null
echo "scratch" >"$TMP/code/notes.txt"
ok tether status --snapshot
out_matches '^ +modified  code  \[git/forkable\] dirty: uncommitted changes in its working tree$'
ok tether status --json
eq "$(json '[o["state"]["dirty"] for o in j["objects"]]')" "[True]"

tags_before=$(git -C "$TMP/code" tag -l | sort)
IGNORE_OPLOG=1 remember_state
fails 1 tether commit -m dirty
err_lines 1
err_matches "^error: \[code\] refusing to pin a dirty working tree in $TMP/code "
IGNORE_OPLOG=1 unchanged
eq "$(git -C "$TMP/code" tag -l | sort)" "$tags_before" "tags after a refused commit"

# committing the change in the code repository makes it clean again
git -C "$TMP/code" add notes.txt
git -C "$TMP/code" commit -q -m notes
ok tether status --snapshot
out_matches '^ +modified  code  \[git/forkable\]$'
ok tether commit -m clean
out_has "pinned code -> tether."

# allow_dirty: the commit is pinned though the tree has changes
new_code_repo "$TMP/scratchpad"
echo wip >"$TMP/scratchpad/wip.txt"
ok tether add pad "$TMP/scratchpad" --kind git --set allow_dirty=true
ok tether commit -m "pad, dirty"
out_has "pinned pad -> tether."
