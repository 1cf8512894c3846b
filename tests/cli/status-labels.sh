#!/usr/bin/env bash
# status labels: new before the first commit, clean after it, modified once a versioned
# directory changes; the header names the dataset and the bookmark.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether status
out_has "no objects yet"
# a workspace that never fingerprinted has nothing cached to show: status reads, no age line
out_lacks "states as fingerprinted"
ok tether add d "$TMP/d" --kind file --file versioned
ok tether add e "$TMP/d" --kind file --file versioned
ok tether status
out_matches '^dataset [0-9a-f]{12}; on trunk bookmark main$'
out_matches '^ +new  d  \[file/observed\]$'
ok tether commit -m first
ok tether status --snapshot
out_matches '^ +clean  d  \[file/observed\] unrecoverable$'
out_matches '^ +clean  e  '
echo y >"$TMP/d/x"
ok tether status --snapshot
out_matches '^ +modified  d  \[file/observed\] unrecoverable$'
out_matches '^ +modified  e  '
# label column: right-aligned to 9
out_matches '^   modified  d'
out_lacks 'clean'
