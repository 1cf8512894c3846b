#!/usr/bin/env bash
# `tether drop` of the bookmark this checkout is on: the dry run plans leaving for the trunk,
# abandoning its commit, deleting the branch, releasing its pin and deleting the code
# repository's working branch, and changes nothing; applied, it does all of that. The trunk
# cannot be dropped.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$TMP/code" tag -l 'tether.*' | sort; }
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.try"
ok tether add code ../code --kind git
ok tether commit -m baseline --json
pin1=$(json 'j["pinned"]["code"]')
main_head=$(git rev-parse main)

ok tether new -b try --eager
git -C "$TMP/code" worktree add -q "$TMP/code-try" "$fork"
v2=$(code_commit "$TMP/code-try" main.py 'print("try")')
git -C "$TMP/code" worktree remove "$TMP/code-try"
ok tether commit -m "try it" --json
pin2=$(json 'j["pinned"]["code"]')
try_commit=$(git rev-parse HEAD)

fails 1 tether drop main
err_has "error: 'main' is the trunk bookmark; it cannot be dropped"
fails 1 tether drop nosuch
err_has "error: no bookmark 'nosuch'"

remember_state
ok tether drop try
out_has "plan: drop ("
out_matches "^ +leave-bookmark  +main  this checkout is on try; \`new main\` first$"
out_matches "^ +abandon-commit  +${try_commit:0:12}  try it$"
out_matches "^ +delete-bookmark  +try  "
out_matches "^ +unpin  code  \[git\] $pin2  no manifest in history references it$"
out_matches "^ +delete-branch  code  \[git\] $fork  bookmark try \(gone\); head was committed by a dropped commit$"
eq "$(grep -cE '^ +(unpin|delete-branch) ' <<<"$OUT")" "2" "gc actions of the drop plan"
out_has "(not applied; \`--no-dry-run\` drops it)"
unchanged "drop dry run"
eq "$(git symbolic-ref --short HEAD)" "try" "checked-out branch after the dry run"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v2" "the fork after the dry run"
eq "$(tags)" "$(printf '%s\n' "$pin1" "$pin2" | sort)" "tags after the dry run"

ok tether drop try --no-dry-run
out_has "left try for main"
out_has "dropped try: 1 commit(s) (${try_commit:0:12})"
out_has "unpinned 1 pin(s)"
out_has "  git: ${pin2#tether.}"
out_has "deleted 1 working branch(es)"
out_has "  code: $fork"
eq "$(git symbolic-ref --short HEAD)" "main" "checked-out branch"
eq "$(git rev-parse HEAD)" "$main_head" "the trunk"
git rev-parse -q --verify refs/heads/try >/dev/null && fail "the dataset branch try is still there"
git -C "$TMP/code" rev-parse -q --verify "refs/heads/$fork" >/dev/null && fail "the code repository's branch is still there"
eq "$(tags)" "$pin1" "tags after drop"
ok tether status
ok tether verify --all-history
out_lacks "missing"
ok tether gc --prune-bookmarks
eq "$OUT" "  gc: nothing to do
                      keeping live bookmarks: main"
