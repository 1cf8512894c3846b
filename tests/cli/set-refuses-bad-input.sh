#!/usr/bin/env bash
# set without keys, without a policy, or with an unknown key is refused and changes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
ok tether add a "$TMP/d" --kind file
remember_state
fails 1 tether set --file versioned
eq "$ERR" "error: give one or more KEY, or --all"
unchanged
fails 1 tether set a
eq "$ERR" "error: nothing to set: pass --file or --pin"
unchanged
fails 1 tether set a nothere --file versioned
eq "$ERR" "error: no such object: nothere"
unchanged "a must not change either"
fails 2 tether set a --file sometimes
unchanged
