#!/usr/bin/env bash
# verify --all-history checks every commit's manifests, labelled <commit[:12]>:<key>,
# skipping Observed records; one missing pin in history fails the run.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file
ok tether add a sys1 --kind memory
ok tether add b sys2 --kind memory
ok tether commit -m c1 --json
ref_a1=$(json 'j["pinned"]["a"]')
c1=$(git rev-parse HEAD)
mem_edit sys1 advance >/dev/null
ok tether commit -m c2
c2=$(git rev-parse HEAD)
mem_edit sys1 advance >/dev/null
mem_edit sys2 advance >/dev/null
ok tether commit -m c3
c3=$(git rev-parse HEAD)
ok tether verify --all-history
for c in $c1 $c2 $c3; do
  out_matches "^ +ok  ${c:0:12}:a$"
  out_matches "^ +ok  ${c:0:12}:b$"
done
out_lacks ':raw'
eq "$(grep -c . <<<"$OUT")" "6" "one line per commit and object"
mem_edit sys1 untag "$ref_a1"
fails 1 tether verify --all-history --json
eq "$(json 'j["'${c1:0:12}':a"]["status"]')" "missing"
eq "$(json 'j["'${c2:0:12}':a"]["status"]')" "ok"
eq "$(json 'j["'${c1:0:12}':b"]["status"]')" "ok"
eq "$(json 'len(j)')" "6"
ok tether verify
