#!/usr/bin/env bash
# --host, --port and --table put those fields in the locator; the port is an integer there
# (as the reference writes it), a --set of the same field still overrides it as a string, and
# a port that is not a number from 1 to 65535 is refused before anything is written.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add tables/events sys1 --kind memory --host db.example --port 5432 --table events --json
eq "$(json 'j["locator"]["port"]')" "5432"
eq "$(json 'type(j["locator"]["port"]).__name__')" "int"
eq "$(json 'j["locator"]["host"] + " " + j["locator"]["table"]')" "db.example events"
m=.tether/objects/tables/events.toml
grep -qx 'port = 5432' "$m" || fail "port is not an integer in the manifest: $(cat "$m")"
grep -qx 'host = "db.example"' "$m" || fail "host"
grep -qx 'table = "events"' "$m" || fail "table"
ok tether add tables/other sys1 --kind memory --port 5432 --set port=6543
grep -qx 'port = "6543"' .tether/objects/tables/other.toml || fail "--set did not override --port"
remember_state
for bad in 0 65536 abc 5432x; do
  fails 2 tether add t/bad sys1 --kind memory --port "$bad"
  err_has "--port"
  unchanged
done
