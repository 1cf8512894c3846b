#!/usr/bin/env bash
# A manifest whose kind has no plugin here (a clone made where it was installed) is an error
# for that object only, named by key: status exits 1 and shows the rest, commit refuses and
# writes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file
printf 'key = "ice"\nkind = "dolt"\nrecoverable = true\n\n[locator]\nuri = "/srv/dolt/repo"\n\n[policy]\nfile = "immutable"\npin = "native"\n' \
  >.tether/objects/ice.toml
fails 1 tether status
out_matches '^ +error  ice  \[dolt/\?\]$'
out_matches '^ +new  raw  \[file/observed\]$'
err_lines 1
err_matches "^error: \[ice\] unknown backend kind: 'dolt' \(installed: "
remember_state
fails 1 tether commit -m x
err_lines 1
err_matches "^error: \[ice\] unknown backend kind: 'dolt'"
unchanged
