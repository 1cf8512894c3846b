#!/usr/bin/env bash
# diff --content asks the backend for its own diff; --limit caps the entries shown and says
# how many more there are.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
for i in 1 2 3; do echo "$i" >"$TMP/d/old$i"; done
ok tether add d "$TMP/d" --kind file --file versioned
ok tether commit -m first
for i in 1 2 3 4 5; do echo "$i" >"$TMP/d/new$i"; done
rm "$TMP/d/old1"
echo changed >"$TMP/d/old2"
ok tether commit -m second
ok tether diff HEAD~1 HEAD --content
out_matches '^    changed  d  \[\+5 -1 ~1 files\]$'
eq "$(grep -c '^              ' <<<"$OUT")" "7" "entries shown"
out_matches '^ {14}  removed  old1'
out_matches '^ {14} modified  old2'
out_matches '^ {14}    added  new5'
ok tether diff HEAD~1 HEAD --content --limit 2
eq "$(grep -c '^ {14} *(added|removed|modified)  ' -E <<<"$OUT")" "2" "entries with --limit 2"
out_matches '^ {14}\.\.\. 5 more \(use --limit\)$'
ok tether diff HEAD~1 --content --limit 0
out_matches '^ {14}\.\.\. 7 more \(use --limit\)$'
# without --content no entries
ok tether diff HEAD~1 HEAD
eq "$OUT" "    changed  d"
