#!/usr/bin/env bash
# A locator- or policy-only change is `changed` with the reason and "same state".
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add a "$TMP/d" --kind file
ok tether add b "$TMP/d" --kind file
ok tether commit -m first
ok tether set a --file versioned
sed -i "s|^uri = .*|uri = \"$TMP/d/\"|" .tether/objects/b.toml
ok tether diff
out_matches '^    changed  a  \[policy changed; same state\]$'
out_matches '^    changed  b  \[locator changed; same state\]$'
ok tether diff --json
eq "$(json '{e["key"]: e["why"] for e in j}')" "{'a': ['policy'], 'b': ['locator']}"
