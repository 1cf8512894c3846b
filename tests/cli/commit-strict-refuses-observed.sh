#!/usr/bin/env bash
# commit --strict refuses an Observed (file) object and writes nothing; without --strict it
# is recorded as not recoverable.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file
remember_state
fails 1 tether commit -m strict --strict
err_lines 1
err_matches "^error: \[raw\] 'raw' is Observed-tier and cannot be pinned"
unchanged
ok tether commit -m lax
out_has "  recorded raw (not recoverable)"
grep -qx 'recoverable = false' .tether/objects/raw.toml || fail "not marked unrecoverable"
