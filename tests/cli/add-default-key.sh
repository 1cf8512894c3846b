#!/usr/bin/env bash
# `tether add PATH --kind K` with one positional, for a kind whose locator is a path or URI:
# the positional is the locator and the key is its last segment, less the kind's suffix
# (git: `.git`). A kind whose locator is not a path keeps the positional as the key; so does
# any kind when the options already name the store. No key to be had is refused, naming
# the way out, and nothing is written.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/raw/plate1" "$TMP/data"
ok tether add "$TMP/raw/plate1" --kind file --json
eq "$(json 'j["key"]')" "plate1"
eq "$(json 'j["locator"]["uri"]')" "$TMP/raw/plate1"
# Relative, with a trailing slash: the same key, so the same object.
fails 1 tether add ../raw/plate1/ --kind file
eq "$ERR" "error: object already exists: plate1"
mkdir -p "$TMP/raw/plate2"
ok tether add ../raw/plate2/ --kind file --json
eq "$(json 'j["key"] + " " + j["locator"]["uri"]')" "plate2 $TMP/raw/plate2"

new_code_repo "$TMP/code.git"
ok tether add "$TMP/code.git" --kind git
eq "$OUT" "added code (git)"

# Not a path kind: the positional is the key, as before.
ok tether add sys1 --kind memory --branch main
eq "$OUT" "added sys1 (memory)"
grep -q '^uri' .tether/objects/sys1.toml && fail "a memory object got a uri"
# The options name the store: the positional is the key.
ok tether add mine --kind file --set uri="$TMP/data"
eq "$OUT" "added mine (file)"

remember_state
fails 1 tether add . --kind file
eq "$ERR" "error: cannot make a key from '.': name the object, as in \`tether add KEY . --kind file\`"
unchanged
fails 1 tether add / --kind file
err_has "cannot make a key from '/'"
unchanged
