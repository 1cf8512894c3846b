#!/usr/bin/env bash
# Adding a key that is registered already is refused and the manifest is kept as it was.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" "$TMP/e"
ok tether add d "$TMP/d" --kind file
remember_state
fails 1 tether add d "$TMP/e" --kind file --file versioned
eq "$ERR" "error: object already exists: d"
unchanged
grep -qx "uri = \"$TMP/d\"" .tether/objects/d.toml || fail "manifest rewritten"
