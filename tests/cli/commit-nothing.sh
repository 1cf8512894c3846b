#!/usr/bin/env bash
# A commit with nothing changed prints so, makes no VCS commit and logs no operation.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file
ok tether commit -m one
before=$(git rev-parse HEAD)
ops_before=$(wc -l <.tether/ops.jsonl)
ok tether commit -m two
out_has "nothing to commit"
eq "$(git rev-parse HEAD)" "$before" "HEAD moved"
eq "$(wc -l <.tether/ops.jsonl)" "$ops_before" "an op was logged"
ok tether commit -m three --json
eq "$(json 'j["vcs_commit"]')" "None"
eq "$(json 'j["unchanged"]')" "['d']"
