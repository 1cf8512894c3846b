#!/usr/bin/env bash
# A local path that does not exist is refused at add, naming the path, and nothing is written.
. "$(dirname "$0")/lib.sh"
new_dataset
remember_state
fails 1 tether add gone "$TMP/does-not-exist" --kind file
err_lines 1
err_has "$TMP/does-not-exist"
unchanged
[ ! -e .tether/objects/gone.toml ] || fail "manifest written"
