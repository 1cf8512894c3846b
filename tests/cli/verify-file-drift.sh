#!/usr/bin/env bash
# verify: ok after commit; a versioned file directory that changed is `drifted` (exit 1);
# --deep is accepted; --json maps labels to status and message.
. "$(dirname "$0")/lib.sh"
new_dataset
ok tether verify
out_has "nothing to verify"
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file --file versioned
ok tether verify
out_has "nothing to verify"
ok tether commit -m first
ok tether verify
out_matches '^ +ok  d$'
ok tether verify --deep
out_matches '^ +ok  d$'
echo y >"$TMP/d/x"
remember_state
fails 1 tether verify
out_matches '^   drifted  d  .+'
unchanged
fails 1 tether verify --json
eq "$(json 'list(j)')" "['d']"
eq "$(json 'j["d"]["status"]')" "drifted"
[ -n "$(json 'j["d"]["message"]')" ] || fail "no message"
