#!/usr/bin/env bash
# commit --dry-run prints the plan and changes nothing: no manifest state, no git commit, no
# pin in the store, no op logged.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file
ok tether add tables/m sys1 --kind memory
remember_state
ok tether commit -m "the message" --dry-run
out_matches '^plan: commit \(3 write\(s\)\)$'
out_matches '^ {17}pin  tables/m  \[memory\] tether\.[0-9a-f]{8}\.[0-9a-f]{16}  native ref at snapshot_id=sys1:s0$'
out_matches '^ {14}record  raw       \[file\]   Observed: recorded, not recoverable$'
out_matches "^ {10}vcs-commit {14}git commit: 'the message'$"
unchanged
! grep -q '^\[state\]' .tether/objects/raw.toml || fail "state written"
[ -z "$(mem_tags sys1)" ] || fail "a pin was cut: $(mem_tags sys1)"
[ ! -e .tether/ops.jsonl ] || ! grep -q '"command":"commit"' .tether/ops.jsonl || fail "op logged"

ok tether commit -m "the message" --dry-run --json
eq "$(json 'j["command"]')" "commit"
eq "$(json '[a["op"] for a in j["actions"]]')" "['record', 'pin', 'vcs-commit']"
eq "$(json 'sorted(j["actions"][1])')" "['detail', 'key', 'kind', 'op', 'params', 'target']"
eq "$(json 'j["actions"][1]["params"]["state"]')" "{'snapshot_id': 'sys1:s0'}"
unchanged

# after a real commit, an unchanged dry run has nothing to do
ok tether commit -m real
ok tether commit -m again --dry-run
out_has "  commit: nothing to do"
out_has "raw: unchanged"
out_has "tables/m: unchanged"
