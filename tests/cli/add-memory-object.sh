#!/usr/bin/env bash
# A memory object is registered with its locator as given (no path to absolutise) and
# nothing is contacted: the store file is not even created.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add tables/events sys1 --kind memory --branch main
eq "$OUT" "added tables/events (memory)"
m=.tether/objects/tables/events.toml
grep -qx 'kind = "memory"' "$m" || fail "kind"
grep -qx 'uri = "sys1"' "$m" || fail "locator uri: $(cat "$m")"
grep -qx 'branch = "main"' "$m" || fail "locator branch"
[ ! -e "$TETHER_MEMORY_STORE" ] || fail "add contacted the store"
ok tether status
out_matches '^ +new  tables/events  \[memory/forkable\]$'
