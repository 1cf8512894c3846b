#!/usr/bin/env bash
# set changes policies (listing what changed and what did not), --json gives the shape of
# the reference, and the next commit records the policy change.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add a "$TMP/d" --kind file
ok tether add b "$TMP/d" --kind file --file versioned
ok tether commit -m first
head0=$(git rev-parse HEAD)

ok tether set a b --file versioned
out_has "  set a  file immutable -> versioned"
out_has "  unchanged b"
out_has "commit to record the policy"
grep -qx 'file = "versioned"' .tether/objects/a.toml || fail "manifest not rewritten"
eq "$(git rev-parse HEAD)" "$head0" "set made a commit"

ok tether set --all --pin record --file immutable --json
eq "$(json 'j["changed"]["a"]["pin"]')" "{'from': 'native', 'to': 'record'}"
eq "$(json 'j["changed"]["a"]["file"]')" "{'from': 'versioned', 'to': 'immutable'}"
eq "$(json 'sorted(j["changed"])')" "['a', 'b']"
eq "$(json 'j["unchanged"]')" "[]"

ok tether set a --pin record
eq "$OUT" "  unchanged a"

ok tether diff
out_matches '^ +changed  a  \[policy changed; same state\]$'
ok tether commit -m "policies"
[ "$(git rev-parse HEAD)" != "$head0" ] || fail "the policy change was not committed"
grep -qx 'pin = "record"' <<<"$(git show HEAD:.tether/objects/a.toml)" || fail "committed manifest lacks the policy"
git diff --quiet HEAD -- .tether || fail "manifests dirty after the commit"
