#!/usr/bin/env bash
# An Icechunk repository (written by the real Icechunk library) tracked as an icechunk
# object: commit pins it with a tag real Icechunk sees, a new real commit shows as modified
# and is pinned again, diff --content lists the arrays and groups that changed, log shows
# the history with the pins, verify reports a tag real Icechunk deleted as missing.
. "$(dirname "$0")/lib.sh"
need_icechunk
icechunk create "$TMP/arrays.icechunk" 2 >/dev/null
s1=$(icechunk_snap write "$TMP/arrays.icechunk" main 0 "first data")
new_dataset
ok tether add arrays ../arrays.icechunk --kind icechunk
grep -qx "uri = \"$TMP/arrays.icechunk\"" .tether/objects/arrays.toml || fail "uri not absolute"
ok tether status --snapshot
out_matches '^ +new  arrays  \[icechunk/forkable\]$'
ok tether commit -m first --json
tag1=$(json 'j["pinned"]["arrays"]')
grep -qx "snapshot_id = \"$s1\"" .tether/objects/arrays.toml || fail "state: $(cat .tether/objects/arrays.toml)"
eq "$(icechunk refs "$TMP/arrays.icechunk" | python3 -c "import json,sys; print(json.load(sys.stdin)['tags'].get('$tag1'))")" "$s1" "the pin, as real Icechunk sees it"

s2=$(icechunk_snap write "$TMP/arrays.icechunk" main 1 "more data")
ok tether status --snapshot
out_matches '^ +modified  arrays  \[icechunk/forkable\]$'
ok tether commit -m second --json
tag2=$(json 'j["pinned"]["arrays"]')
[ "$tag2" != "$tag1" ] || fail "same pin for a new snapshot"

ok tether diff HEAD~1 HEAD --content
out_matches '^    changed  arrays  \[\+1 -0 ~1 nodes\]$'
out_matches '^ +modified  /data  1 chunk written$'
out_matches '^ +added  /g1  group$'

# the other way round the older snapshot is no ancestor: the two snapshots' nodes are compared
ok tether diff HEAD HEAD~1 --content
out_matches '^    changed  arrays  \[\+0 -1 ~1 nodes; compared snapshot contents \('"$s2"' is not an ancestor of '"$s1"'\)\]$'
out_matches '^ +removed  /g1  group$'
out_matches '^ +modified  /data  array$'

ok tether log arrays
out_matches "^  $s2 .* more data  \[main, $tag2\]$"
out_matches "^  $s1 .* first data  \[$tag1\]$"
out_matches '^  1CECHNKREP0F1RSTCMT0 .* Repository initialized$'

ok tether verify
out_matches '^ +ok  arrays$'
icechunk delete-tag "$TMP/arrays.icechunk" "$tag1" >/dev/null
fails 1 tether verify -r HEAD~1
out_matches "^ +missing  arrays  $tag1 not found in $TMP/arrays.icechunk$"
ok tether verify
