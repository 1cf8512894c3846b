#!/usr/bin/env bash
# `open -r REV` (and TETHER_REV) hands back a read-only handle at the state a revision
# recorded; `restore KEY --from REV` resets the working branch onto it, refusing to throw
# away uncommitted writes unless --discard.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.work"
ok tether add code "$TMP/code" --kind git
ok tether commit -m baseline
v1=$(git -C "$TMP/code" rev-parse main)
ok tether new -b work
ok tether open code
git -C "$TMP/code" worktree add -q "$TMP/wt" "$fork"
v2=$(code_commit "$TMP/wt" main.py 'print("v2")')
ok tether commit -m second
git -C "$TMP/code" worktree remove "$TMP/wt"

# reading the past
ok tether open code -r HEAD~1 --json
eq "$(json 'j["read_only"]')" True
eq "$(json 'j["address"]')" "$TMP/code@$v1"
TETHER_REV=HEAD~1 ok tether open code
eq "$OUT" "$TMP/code@$v1" "TETHER_REV"
ok tether open code
eq "$OUT" "$TMP/code@$v2" "without a revision: the working branch"
fails 1 tether open code -r HEAD~1 --writable
err_has "read-only"
fails 1 tether open nope -r HEAD
err_has "object 'nope' does not exist at HEAD"
fails 1 tether open nope
err_has "no such object: nope"

# restore onto the baseline
ok tether restore code --from HEAD~1 --dry-run
out_matches "^ +fork  code  \[git\] $fork  from HEAD~1: tether\.$ds\.[0-9a-f]{16}; resets $fork$"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v2" "a dry run moved the branch"
ok tether restore code --from HEAD~1
out_has "code -> $fork  (from HEAD~1)"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v1" "the branch after restore"
ok tether status --snapshot
out_matches '^ +modified  code  \[git/forkable\]$'
grep -q '"command":"restore"' .tether/ops.jsonl || fail "restore is not in the op log"

# uncommitted writes on the branch are not thrown away silently
git -C "$TMP/code" worktree add -q "$TMP/wt2" "$fork"
v3=$(code_commit "$TMP/wt2" extra.py 'print("unpinned")')
git -C "$TMP/code" worktree remove "$TMP/wt2"
remember_state
fails 1 tether restore code --from HEAD
err_has "cannot restore:"
err_has "code: $fork has writes since this workspace last committed"
err_has "--discard"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v3" "a refused restore moved the branch"
unchanged "a refused restore"
ok tether restore code --from HEAD --discard
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v2" "restore --discard"
fails 1 tether restore nope --from HEAD
err_has "no such object: nope"
