#!/usr/bin/env bash
# init outside any git repository is refused and writes nothing, not even the directory.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/plain" && cd "$TMP/plain"
fails 1 tether init
err_lines 1
err_matches "^error: no git (or jj )?repository found at or above $TMP/plain"
[ -z "$(ls -A)" ] || fail "init wrote files: $(ls -A)"
fails 1 tether init "$TMP/plain/new"
err_has "repository found at or above"
[ ! -e "$TMP/plain/new" ] || fail "init created the target directory"
