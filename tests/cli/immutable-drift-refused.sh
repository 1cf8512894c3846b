#!/usr/bin/env bash
# An immutable (default) file object whose content changed after commit is an error naming
# the object: status --snapshot exits 1, commit refuses and writes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file
ok tether commit -m first
echo tampered >"$TMP/d/x"
fails 1 tether status --snapshot
out_matches '^ +error  d  '
err_lines 1
err_matches "^error: \[d\] immutable object 'd' changed since it was committed"
remember_state
fails 1 tether commit -m second
err_has "immutable object 'd' changed since it was committed"
unchanged
git show HEAD:.tether/objects/d.toml | cmp -s - .tether/objects/d.toml || fail "manifest changed"
