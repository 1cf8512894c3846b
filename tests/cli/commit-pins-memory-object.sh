#!/usr/bin/env bash
# Committing a PIN object cuts the pin tether.<dataset>.<16 hex> in the store before the git
# commit and records [pin] id/ref in the manifest; re-committing unchanged cuts nothing new.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add m sys1 --kind memory
ok tether commit -m first
out_matches "^  pinned m -> tether\.$id\.[0-9a-f]{16}$"
ref=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
out_matches '^committed [0-9a-f]{12}$'
eq "$(mem_tags sys1)" "$ref sys1:s0" "the store's tags"
m=.tether/objects/m.toml
grep -qx '\[pin\]' <<<"$(git show HEAD:$m)" || fail "no [pin] committed"
grep -qx "ref = \"$ref\"" $m || fail "pin ref: $(cat $m)"
grep -qx "id = \"${ref#tether.}\"" $m || fail "pin id: $(cat $m)"
grep -qx 'snapshot_id = "sys1:s0"' $m || fail "state"
grep -qE '^captured_at = "[0-9]{4}-' $m || fail "captured_at"
# the op log: pin progress before the vcs-commit, then done
pin_line=$(grep -n '"action":"pin"' .tether/ops.jsonl | head -1 | cut -d: -f1)
vcs_line=$(grep -n '"action":"vcs-commit"' .tether/ops.jsonl | head -1 | cut -d: -f1)
[ -n "$pin_line" ] && [ -n "$vcs_line" ] && [ "$pin_line" -lt "$vcs_line" ] || fail "the pin was not cut before the git commit"

head1=$(git rev-parse HEAD)
store1=$(mem "s['systems']['sys1']")
ok tether commit -m again
out_has "nothing to commit"
eq "$(git rev-parse HEAD)" "$head1" "an unchanged commit moved HEAD"
eq "$(mem "s['systems']['sys1']")" "$store1" "an unchanged commit wrote to the store"

# a new state: a second pin, the first one stays
mem_edit sys1 advance >/dev/null
ok tether status --snapshot
out_matches '^ +modified  m  \[memory/forkable\]$'
ok tether commit -m second
ref2=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
[ "$ref2" != "$ref" ] || fail "same pin for a new state"
eq "$(mem_tags sys1)" "$(printf '%s\n' "$ref sys1:s0" "$ref2 sys1:s1" | sort)"
