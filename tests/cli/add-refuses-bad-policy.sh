#!/usr/bin/env bash
# An invalid --file or --pin value is a usage error (exit 2) and writes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
remember_state
fails 2 tether add d "$TMP/d" --kind file --file sometimes
err_has "sometimes"
unchanged
fails 2 tether add d "$TMP/d" --kind file --pin maybe
err_has "maybe"
unchanged
fails 2 tether add d "$TMP/d"
err_has "--kind"
unchanged
