#!/usr/bin/env bash
# A malformed tether.toml is refused with the file and the line named, and nothing changes.
. "$(dirname "$0")/lib.sh"
new_dataset
printf '\n[snapshot\nauto = true\n' >>tether.toml
line=$(grep -n '^\[snapshot$' tether.toml | cut -d: -f1)
remember_state
fails 1 tether status
err_lines 1
err_matches "tether\.toml.*(line $line|:$line)"
unchanged
fails 1 tether add x . --kind file
err_matches "tether\.toml.*(line $line|:$line)"
unchanged
