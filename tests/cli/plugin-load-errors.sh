#!/usr/bin/env bash
# A kind whose plugin is missing, or a plugin file that cannot be loaded, gives a one-line
# error naming it, and add writes nothing.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" "$TMP/plugins"
remember_state
fails 1 tether add g "$TMP/d" --kind dolt
err_lines 1
err_matches "^error: unknown backend kind: 'dolt' \(installed: .*file"
unchanged
printf 'this is not an ELF file\n' >"$TMP/plugins/tether-backend-junk.so"
TETHER_PLUGIN_PATH="$TMP/plugins" run tether add j "$TMP/d" --kind junk
[ "$RC" -eq 1 ] || fail "expected exit 1 (got $RC)"
err_lines 1
err_matches "^error: .*$TMP/plugins/tether-backend-junk\.so"
unchanged
# the junk plugin shows up in `backends` as not installed, the good ones still load
TETHER_PLUGIN_PATH="$TMP/plugins" run tether backends
[ "$RC" -eq 0 ] || fail "backends failed with a junk plugin around"
out_matches '^junk +not installed'
out_matches '^file +stable'
