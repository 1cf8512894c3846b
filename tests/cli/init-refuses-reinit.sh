#!/usr/bin/env bash
# A second init in a dataset is refused and changes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
remember_state
fails 1 tether init
eq "$ERR" "error: tether already initialized at $DS"
eq "$OUT" ""
unchanged
fails 1 tether init "$DS" --json
err_has "tether already initialized at $DS"
unchanged
