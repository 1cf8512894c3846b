#!/usr/bin/env bash
# init on a branch other than main records it as the trunk.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/ds" && cd "$TMP/ds"
git init -q -b dev && git commit -q --allow-empty -m initial
ok tether init --json
eq "$(json 'j["trunk"]')" "dev"
grep -qx 'trunk = "dev"' tether.toml || fail "tether.toml does not record trunk dev"
grep -qx 'bookmark = "dev"' .tether/workspace.toml || fail "workspace not on dev"
eq "$(git symbolic-ref --short HEAD)" "dev"
ok tether status
out_matches '; on trunk bookmark dev$'
