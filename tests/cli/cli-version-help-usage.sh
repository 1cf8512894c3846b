#!/usr/bin/env bash
# The program's own surface: --version, help without arguments, `tether help [COMMAND]` (the
# same text as --help), usage errors exit 2.
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

ok tether help
top=$OUT
ok tether --help
eq "$top" "$OUT" "tether help is tether --help"
out_has "help"
ok tether help add
out_has "--kind"
out_has "--port"
add_help=$OUT
ok tether add --help
eq "$add_help" "$OUT" "tether help add is tether add --help"
fails 2 tether help no-such-command
eq "$ERR" "error: no such command: no-such-command (tether help lists them)"
fails 2 tether help add status
err_has "one command at most"
