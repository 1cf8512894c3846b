#!/usr/bin/env bash
# log lists a memory object's native history (ids, refs with the tether pin after commit);
# a file object has none (one-line capability error); an unknown key is refused.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d"
ok tether add m sys1 --kind memory
ok tether add raw "$TMP/d" --kind file
mem_edit sys1 advance >/dev/null
mem_edit sys1 advance >/dev/null
ok tether log m
eq "$(grep -c . <<<"$OUT")" "3"
out_matches '^  sys1:s2 +.*\[main\]$'
out_matches '^  sys1:s0 '
ok tether commit -m first --json
ref=$(json 'j["pinned"]["m"]')
ok tether log m -n 1
eq "$(grep -c . <<<"$OUT")" "1"
out_matches "^  sys1:s2 .*\[main, $ref\]$"
ok tether log m --json
eq "$(json '[e["id"] for e in j]')" "['sys1:s2', 'sys1:s1', 'sys1:s0']"
eq "$(json 'sorted(j[0])')" "['id', 'message', 'refs', 'when']"
eq "$(json 'j[0]["refs"]')" "['main', '$ref']"
fails 1 tether log raw
err_lines 1
err_matches '^error: \[raw\] .*history'
fails 1 tether log nothere
eq "$ERR" "error: no such object: nothere"
