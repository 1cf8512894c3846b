#!/usr/bin/env bash
# status without --snapshot shows the cached states and says how old they are; --snapshot
# reads again.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file --file versioned
ok tether commit -m first
ok tether snapshot
echo changed >"$TMP/d/x"
ok tether status
out_matches '^  states as fingerprinted [0-9]+s ago; --snapshot to refresh$'
out_matches '^ +clean  d  '
ok tether status --no-snapshot --json
eq "$(json 'j["fresh"]')" "False"
[ "$(json 'j["snapshot_at"]')" != "None" ] || fail "no snapshot_at"
ok tether status --snapshot
out_lacks 'states as fingerprinted'
out_matches '^ +modified  d  '
# the cache now holds the new state
ok tether status --no-snapshot
out_matches '^ +modified  d  '
out_has 'states as fingerprinted'
