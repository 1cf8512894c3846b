#!/usr/bin/env bash
# A bookmark moved back by hand (`git reset --hard HEAD~1`) leaves the workspace's store
# branch ahead of what the manifests now record: the working copy is stale. status marks it
# `(STALE: code)`; writable open and commit refuse and change nothing; `tether new` (staying
# on the bookmark) agrees to reset the branch onto the old pin -- its head is what this
# workspace last committed, so no unpinned writes are lost -- and the first writable open
# resets it (lazy fork). The stale marker is gone.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add code "$TMP/code" --kind git
ok tether commit -m first
pin0=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
sha0=$(git -C "$TMP/code" rev-parse HEAD)
branch="tether.ws.$id.x"

ok tether new -b x
ok tether open code
eq "$OUT" "$TMP/code@$sha0" "handle on the fresh fork"
eq "$(git -C "$TMP/code" rev-parse "$branch")" "$sha0" "fork point"

# a write on the fork (through a worktree removed again: git never resets a checked-out branch)
git -C "$TMP/code" worktree add -q "$TMP/code-x" "$branch"
sha1=$(code_commit "$TMP/code-x" data.txt "written on x")
git -C "$TMP/code" worktree remove "$TMP/code-x"
ok tether commit -m w1
out_matches "^  pinned code -> tether\.$id\.[0-9a-f]{16}$"
pin1=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
eq "$(git -C "$TMP/code" rev-parse "$pin1")" "$sha1" "w1 pin target"
ok tether status --snapshot
out_matches '^dataset [0-9a-f]{12}; on bookmark x$'
out_matches '^ +clean  code  \[git/forkable\]$'

# the bookmark moves back by hand: the manifests record sha0, the branch and base hold sha1
git reset -q --hard HEAD~1
grep -qx "sha = \"$sha0\"" .tether/objects/code.toml || fail "reset did not bring back the old manifest"
eq "$(git rev-parse --abbrev-ref HEAD)" "x" "still on x"

ok tether status
out_matches '^dataset [0-9a-f]{12}; on bookmark x \(STALE: code\)$'
err_has "warning: bookmark 'x' was moved to $(git rev-parse HEAD | cut -c1-12): its commit no longer records what the store branches of code hold; \`tether new x\` resets them onto the pins there"
ok tether status --json
eq "$(json 'len(j["bookmark_drift"])')" 1
eq "$(json '[j["stale"], j["stale_keys"], j["bookmark"]]')" "[True, ['code'], 'x']" "status --json"

stale="error: working copy is stale: the committed state of code changed since this workspace forked; run \`tether new\` to refork before writing"
remember_state
tags_before=$(git -C "$TMP/code" tag -l | sort)
refs_before=$(git -C "$TMP/code" for-each-ref --format='%(refname) %(objectname)')
fails 1 tether open code --writable
err_lines 1
eq "$ERR" "$stale" "writable open"
fails 1 tether open code
eq "$ERR" "$stale" "default (writable) open"
fails 1 tether commit -m x
err_lines 1
eq "$ERR" "$stale" "commit"
unchanged "refused writes on a stale working copy"
eq "$(git -C "$TMP/code" tag -l | sort)" "$tags_before" "tags after refused writes"
eq "$(git -C "$TMP/code" for-each-ref --format='%(refname) %(objectname)')" "$refs_before" "code refs after refused writes"
# reading is fine: the working branch, as it is
ok tether open code --read-only
eq "$OUT" "$TMP/code@$sha1" "read-only open"

# tether new, no arguments: stays on x and agrees to reset the branch onto the old pin; the
# head is what this workspace last committed, so there are no writes to discard
ok tether new --dry-run
out_matches "^ +defer-fork  code  \[git\] $branch  from pin $pin0; resets $branch; created on first writable open$"
out_lacks "discarding"
out_lacks "refuse"
ok tether new
out_has "on bookmark x; working refs set up"
out_has "  code -> $branch  (created on first writable open)"
eq "$(git rev-parse --abbrev-ref HEAD)" "x" "new left bookmark x"
ok tether status
out_matches '^dataset [0-9a-f]{12}; on bookmark x$'
out_lacks "STALE"
ok tether status --json
eq "$(json '[j["stale"], j["stale_keys"]]')" "[False, []]" "status --json after new"

# the first writable open resets the branch to the old commit
ok tether open code
eq "$OUT" "$TMP/code@$sha0" "handle after the refork"
eq "$(git -C "$TMP/code" rev-parse "$branch")" "$sha0" "fork branch after the refork"
eq "$(git -C "$TMP/code" rev-parse "$pin1")" "$sha1" "the w1 pin still holds the discarded head"
ok tether status --snapshot
out_matches '^dataset [0-9a-f]{12}; on bookmark x$'
out_matches '^ +clean  code  \[git/forkable\]$'
ok tether commit -m again
out_has "nothing to commit"
