#!/usr/bin/env bash
# verify --all-history over file objects only: Observed records promise nothing, so nothing
# is verified, and the output says why instead of claiming there are no committed states.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo 1 >"$TMP/d/f"
ok tether add d "$TMP/d" --kind file --file versioned
ok tether commit -m one
echo 2 >"$TMP/d/f"
ok tether commit -m two
ok tether verify --all-history
out_has "nothing to verify: the history holds 2 Observed record(s)"
ok tether verify
out_matches '^ +ok  d$'
ok tether status
out_lacks "fingerprinted never"
