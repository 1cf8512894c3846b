#!/usr/bin/env bash
# A secrets file other users can read draws a warning (chmod 600) on every command; 0600 is
# quiet.
. "$(dirname "$0")/lib.sh"
new_dataset
printf '[backends.file]\n' >.tether/secrets.toml
chmod 644 .tether/secrets.toml
ok tether status
err_lines 1
err_matches '^warning: .*\.tether/secrets\.toml is readable by other users; `chmod 600` it'
chmod 600 .tether/secrets.toml
ok tether status
eq "$ERR" ""
grep -q secrets <<<"$(git status --porcelain)" && fail "secrets.toml is not ignored"
true
