#!/usr/bin/env bash
# undo of a gc that deleted a bookmark's working branch: the branch comes back at the head gc
# recorded, the released pin stays released (pins are irreversible: exit 3, said on stderr).
. "$(dirname "$0")/lib.sh"
tags() { git -C "$TMP/code" tag -l 'tether.*' | sort; }
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.try"
ok tether add code ../code --kind git
ok tether commit -m baseline --json
pin1=$(json 'j["pinned"]["code"]')
v1=$(git -C "$TMP/code" rev-parse main)

ok tether new -b try --eager
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v1" "the fork"
git -C "$TMP/code" worktree add -q "$TMP/code-try" "$fork"
v2=$(code_commit "$TMP/code-try" main.py 'print("try")')
git -C "$TMP/code" worktree remove "$TMP/code-try"
ok tether commit -m "try it" --json
pin2=$(json 'j["pinned"]["code"]')
eq "$(git -C "$TMP/code" rev-parse "$pin2")" "$v2" "the try pin"

ok tether new main
git branch -q -D try
eq "$(tags)" "$(printf '%s\n' "$pin1" "$pin2" | sort)" "tags before gc"
# the try commit is gone, so nothing pins the branch's head any more: kept unless forced
ok tether gc --prune-bookmarks
out_matches "^ +unpin  code  \[git\] $pin2  no manifest in history references it$"
out_matches "^ +keep-branch  code  \[git\] $fork  bookmark try \(gone\); kept: has unpinned writes \(.*\) \(--force-prune deletes\)$"
ok tether gc --prune-bookmarks --force-prune
out_matches "^ +unpin  code  \[git\] $pin2  no manifest in history references it$"
out_matches "^ +delete-branch  code  \[git\] $fork  bookmark try \(gone\); FORCED although it has unpinned writes "
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v2" "the branch after the dry runs"
eq "$(tags)" "$(printf '%s\n' "$pin1" "$pin2" | sort)" "tags after the dry runs"
ok tether gc --prune-bookmarks --force-prune --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${pin2#tether.}"
out_has "deleted 1 working branch(es)"
out_has "  code: $fork"
git -C "$TMP/code" rev-parse -q --verify "refs/heads/$fork" >/dev/null && fail "the branch is still there"
eq "$(tags)" "$pin1" "tags after gc"
gcop=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "gc"][-1])' .tether/ops.jsonl)

fails 3 tether undo
out_has "undid $gcop (gc"
out_has "code: $fork recreated at"
err_has "1 pin(s) deleted"
err_has "IRREVERSIBLE"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v2" "the recreated branch"
eq "$(tags)" "$pin1" "tags after undo"
ok tether ops -n 2
out_matches "^[0-9a-f]{12}  .*  undo "
