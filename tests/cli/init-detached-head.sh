#!/usr/bin/env bash
# init on a detached HEAD creates the trunk branch there and switches to it.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/ds" && cd "$TMP/ds"
git init -q -b main
git commit -q --allow-empty -m one
git commit -q --allow-empty -m two
first=$(git rev-parse HEAD~1)
git checkout -q --detach HEAD~1
git branch -q -D main
ok tether init
eq "$(git symbolic-ref --short HEAD)" "main" "HEAD after init"
eq "$(git rev-parse main)" "$first" "trunk created at the detached commit"
grep -qx 'bookmark = "main"' .tether/workspace.toml || fail "workspace not on main"

# detached while the trunk branch exists elsewhere: refused before anything is written
mkdir -p "$TMP/ds2" && cd "$TMP/ds2"
git init -q -b main
git commit -q --allow-empty -m one
git commit -q --allow-empty -m two
git checkout -q --detach HEAD~1
remember_state
main_before=$(git rev-parse main)
fails 1 tether init
err_lines 1
err_matches "^error: HEAD is detached and the trunk branch main already exists .*git switch main"
unchanged
[ ! -e .tether ] || fail "init left .tether behind"
eq "$(git rev-parse main)" "$main_before" "main moved"
git symbolic-ref -q HEAD >/dev/null && fail "HEAD was switched"
true
