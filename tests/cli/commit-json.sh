#!/usr/bin/env bash
# commit --json: vcs_commit, pinned (ref or null for a recorded state), unrecoverable,
# unchanged.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file
ok tether add m sys1 --kind memory
ok tether add r sys2 --kind memory --pin record
ok tether commit -m first --json
eq "$(json 'sorted(j)')" "['pinned', 'unchanged', 'unrecoverable', 'vcs_commit']"
eq "$(json 'j["vcs_commit"]')" "$(git rev-parse HEAD)"
eq "$(json 'sorted(j["pinned"])')" "['m', 'r']"
eq "$(json 'j["pinned"]["r"]')" "None"
grep -qE '^tether\.[0-9a-f]{8}\.[0-9a-f]{16}$' <<<"$(json 'j["pinned"]["m"]')" || fail "pin ref"
eq "$(json 'j["unrecoverable"]')" "['raw']"
eq "$(json 'j["unchanged"]')" "[]"
[ -z "$(mem_tags sys2)" ] || fail "pin=record cut a pin"
grep -qx 'recoverable = true' .tether/objects/r.toml || fail "recorded memory state is recoverable"
! grep -q '^\[pin\]' .tether/objects/r.toml || fail "pin=record has a [pin]"
