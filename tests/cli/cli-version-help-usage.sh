#!/usr/bin/env bash
# The program's own surface: --version, help without arguments, usage errors exit 2.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
ok tether --version
out_matches '^tether [0-9]+\.[0-9]+\.[0-9]+'
eq "$(grep -c . <<<"$OUT")" "1" "--version prints one line"

ok tether
out_has "Usage"
for c in init add remove set status snapshot commit diff verify log backends; do out_has "$c"; done

fails 2 tether --no-such-option
err_has "--no-such-option"
fails 2 tether status --no-such-option
fails 2 tether no-such-command
fails 2 tether add
