#!/usr/bin/env bash
# A registered path that disappeared is an `error` object: labelled, reported on stderr
# with its key, exit 1; the other objects are still shown.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" "$TMP/gone" && echo x >"$TMP/d/x" && echo y >"$TMP/gone/y"
ok tether add d "$TMP/d" --kind file
ok tether add gone "$TMP/gone" --kind file
ok tether commit -m first
rm -rf "$TMP/gone"
fails 1 tether status --snapshot
out_matches '^ +error  gone  \[file/observed\]'
out_matches '^ +clean  d  '
err_lines 1
err_matches "^error: \[gone\] .*$TMP/gone"
# the error is cached: plain status shows it too
fails 1 tether status
out_matches '^ +error  gone  '
fails 1 tether status --json
eq "$(json '[o["key"] for o in j["objects"] if o["error"]]')" "['gone']"
# a commit refuses while an object cannot be read, and writes nothing
remember_state
fails 1 tether commit -m second
err_has "gone"
unchanged
