#!/usr/bin/env bash
# When the VCS commit fails (a pre-commit hook refuses it), commit exits 1, releases the pins
# it cut, restores the manifests, leaves no listing behind and ends its op `rolled_back`.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add m sys1 --kind memory
ok tether add raw "$TMP/d" --kind file --file versioned
ok tether commit -m first
ref1=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
[ -n "$ref1" ] || fail "no first pin"

# new states for both objects, then a hook that refuses every commit
mem_edit sys1 advance >/dev/null
echo more >"$TMP/d/y"
printf '#!/bin/sh\necho "hook says no" >&2\nexit 1\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
manifests_before=$(cat .tether/objects/m.toml .tether/objects/raw.toml)
listings_before=$(ls .tether/listings)
head_before=$(git rev-parse HEAD)

fails 1 tether commit -m second
err_has "hook says no"
eq "$(git rev-parse HEAD)" "$head_before" "HEAD moved"
eq "$(mem_tags sys1)" "$ref1 sys1:s0" "the new pin was not released"
eq "$(cat .tether/objects/m.toml .tether/objects/raw.toml)" "$manifests_before" "manifests not restored"
eq "$(ls .tether/listings)" "$listings_before" "a listing was left behind"
git diff --quiet HEAD -- .tether tether.toml || fail "the working tree differs from HEAD"
last=$(tail -n 1 .tether/ops.jsonl)
python3 -c 'import json,sys; l=json.loads(sys.argv[1]); assert l["result"]["rolled_back"] is True, l; assert "hook says no" in l["result"]["failed"], l' "$last" ||
  fail "op log does not end rolled_back: $last"
op=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["done"])' "$last")
grep -q "\"id\":\"$op\".*\"command\":\"commit\"\|\"command\":\"commit\".*\"id\":\"$op\"" .tether/ops.jsonl || fail "the rolled-back op is not a commit"

# without the hook the same commit goes through
rm .git/hooks/pre-commit
ok tether commit -m second
out_matches '^  pinned m -> '
[ "$(git rev-parse HEAD)" != "$head_before" ] || fail "no commit"
