#!/usr/bin/env bash
# snapshot prints each object's state (text and --json) and caches them for status.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file
ok tether add m sys1 --kind memory
ok tether snapshot
out_matches "^  d: \{.*'digest': '[0-9a-f]{32}'.*\}$"
out_matches "^  d: \{.*'type': 'dir'.*\}$"
out_has "  m: {'snapshot_id': 'sys1:s0'}"
grep -q '^last_snapshot_at = ' .tether/workspace.toml || fail "no snapshot time cached"
mem_edit sys1 advance >/dev/null
ok tether snapshot --json
eq "$(json 'j["m"]')" "{'snapshot_id': 'sys1:s1'}"
eq "$(json 'j["d"]["type"]')" "dir"
eq "$(json 'sorted(j)')" "['d', 'm']"
