#!/usr/bin/env bash
# commit without -m is refused (an empty message too) and changes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file
remember_state
fails 1 tether commit
eq "$ERR" "error: a message is required: -m/--message"
unchanged
fails 1 tether commit -m ""
eq "$ERR" "error: a message is required: -m/--message"
unchanged
fails 2 tether commit -m
unchanged
