#!/usr/bin/env bash
# A --set without '=' (or with an empty name) is refused before anything is written.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
remember_state
fails 1 tether add d "$TMP/d" --kind file --set novalue
eq "$ERR" "error: --set expects key=value, got 'novalue'"
unchanged
fails 1 tether add d "$TMP/d" --kind file --set =v
eq "$ERR" "error: --set expects key=value, got '=v'"
unchanged
