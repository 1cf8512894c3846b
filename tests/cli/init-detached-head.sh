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
