#!/usr/bin/env bash
# add --json and remove --json (docs/cli.md): stdout is one JSON object with the fields a
# script reads -- add: key, kind, locator (as stored: a relative path made absolute), at,
# created, maturity (as `tether backends` reports it); remove: key, kind. Errors stay on
# stderr with exit 1 and nothing on stdout.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$DS/data/raw" sub && echo x >"$DS/data/raw/x"

cd sub
ok tether add raw ../data/raw --kind file --set note=hello --json
cd "$DS"
eq "$(json 'sorted(j)')" "['at', 'created', 'fork', 'key', 'kind', 'locator', 'maturity']"
eq "$(json 'j["key"]')" "raw"
eq "$(json 'j["kind"]')" "file"
eq "$(json 'j["locator"]["uri"]')" "$DS/data/raw" "locator as stored (absolute)"
eq "$(json 'j["locator"]["note"]')" "hello"
eq "$(json 'j["at"]')" "None"
eq "$(json 'j["created"]')" "False"
file_maturity=$(json 'j["maturity"]')
[ -f .tether/objects/raw.toml ] || fail "add --json wrote no manifest"

ok tether add tables/events sys1 --kind memory --branch main --at s1 --json
eq "$(json 'j["key"]')" "tables/events"
eq "$(json 'j["at"]')" "s1"
eq "$(json 'j["locator"]')" "{'at': 's1', 'branch': 'main', 'uri': 'sys1'}"
mem_maturity=$(json 'j["maturity"]')

ok tether backends --json
eq "$file_maturity" "$(json '[b["maturity"] for b in j if b["kind"] == "file"][0]')" "add's maturity is the backend's"
eq "$mem_maturity" "$(json '[b["maturity"] for b in j if b["kind"] == "memory"][0]')" "add's maturity is the backend's"

ok tether remove tables/events --json
eq "$(json 'sorted(j)')" "['key', 'kind']"
eq "$(json 'j["key"]')" "tables/events"
eq "$(json 'j["kind"]')" "memory"
[ ! -e .tether/objects/tables/events.toml ] || fail "remove --json kept the manifest"

fails 1 tether remove tables/events --json
eq "$OUT" ""
eq "$ERR" "error: no such object: tables/events"
fails 1 tether add raw ../data/raw --kind file --json
eq "$OUT" ""
err_has "object already exists: raw"

# Without --json the text lines are unchanged.
ok tether remove raw
eq "$OUT" "removed raw"
