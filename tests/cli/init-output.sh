#!/usr/bin/env bash
# init writes tether.toml, the .gitignore and the workspace, says where, and --json prints
# only the JSON object.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/ds" && cd "$TMP/ds"
git init -q -b main && git commit -q --allow-empty -m initial
ok tether init
out_matches "^initialized tether dataset at $TMP/ds \(dataset id [0-9a-f]{8}: its pins and working branches are tether\.[0-9a-f]{8}\.\* / tether\.ws\.[0-9a-f]{8}\.\*"
id=$(sed -nE 's/.*dataset id ([0-9a-f]{8}).*/\1/p' <<<"$OUT")
grep -qx "id = \"$id\"" tether.toml || fail "tether.toml lacks the dataset id $id"
grep -qx 'version = 5' tether.toml || fail "tether.toml is not version 5"
eq "$(cat .tether/.gitignore)" "$(printf '/workspace.toml\n/ops.jsonl\n/cache\n/lock\n/secrets.toml')" ".gitignore"
grep -qE '^workspace_id = "[0-9a-f]{32}"$' .tether/workspace.toml || fail "no workspace id"
grep -qx 'bookmark = "main"' .tether/workspace.toml || fail "workspace not on main"
[ -d .tether/objects ] || fail "no objects directory"

mkdir -p "$TMP/ds/sub"
ok tether init sub --json
eq "$(json 'sorted(j)')" "['dataset_id', 'root', 'trunk']"
eq "$(json 'j["root"]')" "$TMP/ds/sub"
eq "$(json 'j["trunk"]')" "main"
grep -qx "id = \"$(json 'j["dataset_id"]')\"" sub/tether.toml || fail "JSON dataset id is not the one written"
