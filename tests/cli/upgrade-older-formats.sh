#!/usr/bin/env bash
# `tether upgrade` brings datasets of older formats to version 5. A version-3 dataset: every
# other command refuses it naming the pending migrations; the upgrade (a dry run first, which
# changes nothing) drops the legacy `write` policy, makes the relative path absolute from the
# dataset root, adopts the trunk, writes version 5 and commits. A version-1 dataset, whose
# pins and working branch predate dataset ids: it gets an id, each pin any commit names is
# renamed in the git store to the id the namespace gives it, the working branch too, and
# every commit's manifests are rewritten to name the new pins, so verify --all-history holds.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$1" tag -l 'tether.*' | sort | tr '\n' ' '; }

# ---- version 3 ----
mkdir -p "$TMP/v3/raw" && cd "$TMP/v3"
echo data > raw/a.txt
git init -q -b main
mkdir -p .tether/objects
printf '[tether]\nversion = 3\n\n[dataset]\nid = "0a1b2c3d"\n\n[defaults]\nfile = "immutable"\nwrite = "fork"\n' > tether.toml
printf 'key = "raw"\nkind = "file"\n\n[locator]\nuri = "raw"\n\n[policy]\nfile = "immutable"\npin = "native"\nwrite = "fork"\n' \
  > .tether/objects/raw.toml
printf '/workspace.toml\n' > .tether/.gitignore
git add -A && git commit -q -m "a version-3 dataset"

fails 1 tether status
eq "$ERR" "error: tether.toml is version 3; this tether expects 5. Run \`tether upgrade --dry-run\`, then \`tether upgrade\` (pending: v4 absolute local paths, v5 0.1.0b3 identities and states)"
# The first opens claim this checkout's workspace.toml and list the lock file it takes in
# .tether/.gitignore, as any command does.
ok tether upgrade --dry-run
ok tether upgrade --dry-run
remember_state
ok tether upgrade --dry-run
out_has "plan: upgrade ("
out_matches "^ +rewrite-manifest  raw +\[file\] raw  drops the legacy write policy$"
out_matches "^ +rewrite-locator  raw +\[file\] raw  uri: raw -> $TMP/v3/raw$"
unchanged "upgrade --dry-run"
ok tether upgrade
out_has "upgraded v3 -> v5"
out_has "  trunk   main"
out_has "  rewrote  raw"
out_matches "^  commit  [0-9a-f]{12}$"
eq "$(git log -1 --format=%s)" "tether upgrade: v3 -> v5"
eq "$(git status --porcelain --untracked-files=no)" "" "the upgrade left uncommitted changes"
grep -q '^version = 5$' tether.toml || fail "tether.toml is not at version 5"
grep -q '^trunk = "main"$' tether.toml || fail "the trunk was not adopted"
grep -q 'write' tether.toml .tether/objects/raw.toml && fail "the write policy is still there"
grep -q "^uri = \"$TMP/v3/raw\"$" .tether/objects/raw.toml || fail "the path is still relative"
grep -qx '/secrets.toml' .tether/.gitignore || fail ".gitignore not written in full"
ok tether status
ok tether upgrade
eq "$OUT" "already at version 5"
ok tether ops
out_matches "upgrade +v3 -> v5"
# Undone: the commit goes and the files are as they were; then upgraded again.
ok tether undo
eq "$(git log -1 --format=%s)" "a version-3 dataset"
eq "$(git status --porcelain --untracked-files=no)" "" "undo left changes"
fails 1 tether status
err_has "tether.toml is version 3"
ok tether upgrade
out_has "upgraded v3 -> v5"

# ---- version 1 ----
new_code_repo "$TMP/code"
sha1=$(git -C "$TMP/code" rev-parse HEAD)
sha2=$(code_commit "$TMP/code" main.py 'print("v2")')
git -C "$TMP/code" tag tether.aaaaaaaaaaaa "$sha1"
git -C "$TMP/code" tag tether.bbbbbbbbbbbb "$sha2"
git -C "$TMP/code" branch tether.ws.c0fe5a1e.feature "$sha2"
mkdir -p "$TMP/v1" && cd "$TMP/v1"
git init -q -b main
mkdir -p .tether/objects
printf '[snapshot]\nauto = false\n' > tether.toml   # no [tether] version: 1, no dataset id
manifest() {
  printf 'key = "code"\nkind = "git"\n\n[locator]\nuri = "%s"\n\n[policy]\nfile = "immutable"\npin = "native"\n\n[state]\ndirty = false\nsha = "%s"\n\n[pin]\nid = "%s"\nref = "tether.%s"\n' \
    "$TMP/code" "$1" "$2" "$2" > .tether/objects/code.toml
}
manifest "$sha1" aaaaaaaaaaaa
git add -A && git commit -q -m "first state"
manifest "$sha2" bbbbbbbbbbbb
git add -A && git commit -q -m "second state"
printf 'workspace_id = "c0fe5a1e0000000000000000000000aa"\nbookmark = "main"\n\n[working_refs]\ncode = "tether.ws.c0fe5a1e.feature"\n' \
  > .tether/workspace.toml
printf '/workspace.toml\n/ops.jsonl\n' > .tether/.gitignore
git add .tether/.gitignore && git commit -q -m "ignore"
first=$(git rev-list --max-parents=0 HEAD)

fails 1 tether verify
err_has "tether.toml is version 1; this tether expects 5"
# A store rename that fails stops the upgrade before history or any file changes.
ok tether upgrade --plan "$TMP/up.json"
mv "$TMP/code" "$TMP/code.away"
head_before=$(git rev-parse HEAD); files_before=$(cat tether.toml .tether/objects/code.toml | sha256sum)
fails 3 tether upgrade --from-plan "$TMP/up.json"
out_has "upgrade of v1 stopped"
err_has "  FAILED  code: rename-pin tether."
eq "$(git rev-parse HEAD)" "$head_before" "a failed rename moved HEAD"
eq "$(cat tether.toml .tether/objects/code.toml | sha256sum)" "$files_before" "a failed rename changed files"
mv "$TMP/code.away" "$TMP/code"
# A saved plan carries the id it gives.
planned=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"]["dataset_id"])' "$TMP/up.json")
ok tether upgrade --from-plan "$TMP/up.json" --json
id=$(json 'j["dataset_id"]')
eq "$id" "$planned" "the id the plan gave"
[[ "$id" =~ ^[0-9a-f]{8}$ ]] || fail "no dataset id given: $id"
eq "$(json 'j["from_version"], j["to_version"]')" "1 5"
eq "$(json 'len(j["renamed_pins"])')" "2"
eq "$(json 'j["renamed_branches"]')" "[['tether.ws.c0fe5a1e.feature', 'tether.ws.$id.main']]"
eq "$(json 'j["rewritten_commits"]')" "3"   # every commit: the first names a renamed pin
new2=$(sed -nE 's/^id = "(.*)"$/\1/p' .tether/objects/code.toml)
[[ "$new2" =~ ^$id\.[0-9a-f]{16}$ ]] || fail "the working tree's pin is not in the namespace: $new2"
eq "$(git -C "$TMP/code" rev-parse "tether.$new2^{commit}")" "$sha2" "the renamed pin's commit"
case " $(tags "$TMP/code")" in *" tether.aaaaaaaaaaaa "*|*" tether.bbbbbbbbbbbb "*) fail "a legacy tag is still there";; esac
eq "$(git -C "$TMP/code" tag -l "tether.$id.*" | wc -l | tr -d ' ')" "2" "renamed tags"
git -C "$TMP/code" rev-parse -q --verify "refs/heads/tether.ws.$id.main" >/dev/null || fail "the branch was not renamed"
git -C "$TMP/code" rev-parse -q --verify "refs/heads/tether.ws.c0fe5a1e.feature" >/dev/null && fail "the old branch is still there"
grep -qx "code = \"tether.ws.$id.main\"" .tether/workspace.toml || fail "the workspace names the old branch"
old_first=$(git rev-list --max-parents=0 HEAD)
[ "$old_first" != "$first" ] || fail "history was not rewritten"
git show "$old_first:.tether/objects/code.toml" | grep -q "^ref = \"tether.$id\." || fail "the first commit names the legacy pin"
eq "$(git log --format=%s | tr '\n' '|')" "tether upgrade: v1 -> v5|ignore|second state|first state|"
ok tether verify --all-history
ok tether status
# Undone in reverse: the branch and pins renamed back, history rewritten back (the original
# commits come back with their ids), the upgrade's commit gone with its files.
ok tether undo
out_has "commit(s) rewritten back"
eq "$(tags "$TMP/code")" "tether.aaaaaaaaaaaa tether.bbbbbbbbbbbb " "the legacy tags are back"
git -C "$TMP/code" rev-parse -q --verify "refs/heads/tether.ws.c0fe5a1e.feature" >/dev/null || fail "the legacy branch is not back"
eq "$(git rev-list --max-parents=0 HEAD)" "$first" "the first commit's original id"
eq "$(git log --format=%s | tr '\n' '|')" "ignore|second state|first state|"
grep -q '^version' tether.toml && fail "tether.toml is not the version-1 file again"
grep -qx 'code = "tether.ws.c0fe5a1e.feature"' .tether/workspace.toml || fail "the workspace names the new branch"
eq "$(git status --porcelain --untracked-files=no)" "" "undo left changes"
fails 1 tether status
err_has "tether.toml is version 1"
