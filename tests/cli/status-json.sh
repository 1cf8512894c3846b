#!/usr/bin/env bash
# status --json: the fields of the reference, one entry per object in key order.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add z "$TMP/d" --kind file
ok tether add m sys1 --kind memory
ok tether commit -m first
ok tether status --snapshot --json
eq "$(json 'sorted(j)')" "['bookmark', 'bookmark_drift', 'fresh', 'manifest_hash', 'objects', 'snapshot_at', 'stale', 'stale_keys', 'trunk', 'vcs_drift']"
eq "$(json 'j["bookmark"]')" "main"
eq "$(json 'j["trunk"]')" "main"
eq "$(json 'j["fresh"]')" "True"
eq "$(json 'j["stale"]')" "False"
eq "$(json 'len(j["manifest_hash"])')" "64"
eq "$(json '[o["key"] for o in j["objects"]]')" "['m', 'z']"
for f in key kind tier state pinned recoverable origin verify error; do
  eq "$(json "all('$f' in o for o in j['objects'])")" "True" "object field $f"
done
eq "$(json 'j["objects"][0]["pinned"]')" "True"
eq "$(json 'j["objects"][0]["tier"]')" "forkable"
eq "$(json 'j["objects"][0]["state"]["snapshot_id"]')" "sys1:s0"
eq "$(json 'j["objects"][1]["recoverable"]')" "False"
eq "$(json 'j["objects"][1]["state"]["type"]')" "dir"
eq "$(json 'j["objects"][1]["error"]')" "None"
# the text header's hash is the JSON one
hash=$(json 'j["manifest_hash"][:12]')
ok tether status
out_matches "^dataset $hash; "
