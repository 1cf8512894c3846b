#!/usr/bin/env bash
# `tether pull` commits what the branches hold now: on the trunk the upstream branches, on a
# bookmark its working branches (objects without one sit at their pin). Nothing moved: no
# commit. Refused on no bookmark, for another bookmark, and over uncommitted manifest edits.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ok tether add code "$TMP/code" --kind git
ok tether commit -m baseline
v1=$(git -C "$TMP/code" rev-parse main)

ok tether pull
out_has "  up to date code"
out_has "main is up to date"
head0=$(git rev-parse HEAD)

v2=$(code_commit "$TMP/code" main.py 'print("v2")')
ok tether pull
out_has "  pulled code  dirty=False sha=${v1:0:16}… -> dirty=False sha=${v2:0:16}…"
out_matches '^committed [0-9a-f]{12} on main$'
eq "$(git log -1 --format=%s)" "pull main: 1 object" "the commit message"
eq "$(git rev-parse HEAD~1)" "$head0" "pull made one commit"
grep -qx "sha = \"$v2\"" .tether/objects/code.toml || fail "manifest: $(cat .tether/objects/code.toml)"
grep -q '"command":"pull"' .tether/ops.jsonl || fail "pull is not in the op log"
ok tether pull --json
eq "$(json 'j["committed"]')" "{}"
eq "$(json 'j["unchanged"]')" "['code']"

# on a bookmark: the working branch is pulled; before the first open, code sits at its pin
ok tether new -b side
ok tether pull
out_has "  skipped code: no branch yet; sits at its pin"
out_has "side is up to date"
ok tether open code
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
git -C "$TMP/code" worktree add -q "$TMP/code-side" "tether.ws.$ds.side"
v3=$(code_commit "$TMP/code-side" side.py 'print("side")')
code_commit "$TMP/code" main.py 'print("main moved")' >/dev/null
ok tether pull -m "pull the side branch"
out_has "  pulled code"
eq "$(git log -1 --format=%s)" "pull the side branch"
grep -qx "sha = \"$v3\"" .tether/objects/code.toml || fail "pulled the wrong branch: $(cat .tether/objects/code.toml)"

# refusals
fails 1 tether pull main
err_has "this workspace works on 'side'; \`tether new main\` first"
echo "# edit" >>.tether/objects/code.toml
fails 1 tether pull
err_has "manifests have uncommitted edits; \`tether commit\` them (or undo) before pulling"
git checkout -q -- .tether/objects/code.toml
ok tether new "$head0"
out_has "on no bookmark: read-only"
eq "$(git symbolic-ref --short HEAD)" "tether/${head0:0:12}" "parked on a tether/ branch"
fails 1 tether pull
err_has "this working copy is on no bookmark; \`tether new NAME\` to work on one, then pull"
