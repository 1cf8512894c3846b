#!/usr/bin/env bash
# verify of a memory object whose pin was deleted from the store: missing, exit 1; -r REV
# verifies an older commit's manifests.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add m sys1 --kind memory
ok tether commit -m first --json
ref1=$(json 'j["pinned"]["m"]')
mem_edit sys1 advance >/dev/null
ok tether commit -m second --json
ref2=$(json 'j["pinned"]["m"]')
ok tether verify
out_matches '^ +ok  m$'
mem_edit sys1 untag "$ref1"
# the working tree's pin (ref2) is intact
ok tether verify
ok tether verify -r HEAD
# the first commit's pin is gone
fails 1 tether verify -r HEAD~1
out_matches "^   missing  m  .*$ref1"
fails 1 tether verify --rev HEAD~1 --json
eq "$(json 'j["m"]["status"]')" "missing"
fails 1 tether verify -r no-such-rev
err_lines 1
err_matches "^error: (could not resolve revision: no-such-rev|unknown revision 'no-such-rev')$"
