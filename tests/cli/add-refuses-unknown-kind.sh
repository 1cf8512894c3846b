#!/usr/bin/env bash
# An unknown kind is refused with the installed kinds named, and nothing is written.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
remember_state
fails 1 tether add d "$TMP/d" --kind nosuchkind
err_lines 1
err_matches "^error: unknown backend kind: 'nosuchkind' \(installed: [a-z, ]*file[a-z, ]*\)"
err_has "memory"
unchanged
