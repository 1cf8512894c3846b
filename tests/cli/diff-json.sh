#!/usr/bin/env bash
# diff --json shape, and an unknown revision is an error that changes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file --file versioned
ok tether commit -m first
echo y >"$TMP/d/y"
ok tether commit -m second
ok tether diff HEAD~1 HEAD --content --json
eq "$(json 'len(j)')" "1"
eq "$(json 'sorted(j[0])')" "['a', 'b', 'change', 'detail', 'detail_error', 'key', 'why']"
eq "$(json 'j[0]["change"]')" "changed"
eq "$(json 'j[0]["a"]["key"]')" "d"
eq "$(json 'j[0]["a"]["state"] != j[0]["b"]["state"]')" "True"
eq "$(json 'sorted(j[0]["detail"])')" "['added', 'entries', 'modified', 'note', 'removed', 'summary', 'truncated', 'unit']"
eq "$(json 'j[0]["detail"]["entries"] == [{"path": "y", "change": "added", "detail": "+2 B"}]')" "True" "entries"
eq "$(json '(j[0]["detail"]["added"], j[0]["detail"]["removed"], j[0]["detail"]["modified"])')" "(1, 0, 0)"
eq "$(json 'j[0]["detail_error"]')" "None"
ok tether diff HEAD~1 HEAD --json
eq "$(json 'j[0]["detail"]')" "None"
ok tether diff HEAD HEAD --json
eq "$(json 'j[0]["change"]')" "unchanged"
remember_state
fails 1 tether diff no-such-rev
err_lines 1
err_lines 1
err_matches "^error: (could not resolve revision: no-such-rev|unknown revision 'no-such-rev')$"
unchanged
fails 1 tether diff HEAD no-such-rev --json
err_matches "no-such-rev"
