#!/usr/bin/env bash
# A bookmark lands whole or not at all: when one object is refused (its base moved and only
# a fast-forward is allowed), every other move is held and nothing moves, trunk included.
# Naming keys lands a subset on purpose, and a subset never moves the trunk; promote then
# lands the rest once its base is settled.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
X=tether.ws.$id.x
ok tether add a sys1 --kind memory
ok tether add b sys2 --kind memory
ok tether commit -m baseline
trunk0=$(git rev-parse main)
head_of() { mem "s['systems']['$1']['branches'].get('$2')"; }

ok tether new -b x
ok tether open a
ok tether open b
wa=$(mem_edit sys1 write "$X")
wb=$(mem_edit sys2 write "$X" relabel)
ok tether commit -m "work on both"
bm=$(git rev-parse HEAD)
moved=$(mem_edit sys2 advance)   # sys2's main moves under the bookmark

remember_state
fails 1 tether promote --strategy ff
out_matches '^  refused        b: main moved since the fork \(snapshot_id=sys2:s0 -> snapshot_id=sys2:s[0-9]+\) and strategy=ff'
out_matches '^  held           a: would fast-forward: .*; held because b refused, and a bookmark is planned whole or not at all$'
out_has "nothing moved: a bookmark lands whole or not at all"
eq "$(head_of sys1 main)" "sys1:s0" "a held move moved sys1"
eq "$(head_of sys2 main)" "$moved" "sys2"
eq "$(git rev-parse main)" "$trunk0" "the trunk"
unchanged "a refused promotion"

# land a alone, on purpose: the trunk stays
ok tether promote a --strategy ff
out_has "  fast-forwarded a -> {'snapshot_id': '$wa'}"
out_lacks "main ->"
eq "$(head_of sys1 main)" "$wa" "sys1 after promote a"
eq "$(git rev-parse main)" "$trunk0" "a subset moved the trunk"

# the rest merges (memory has MERGE); after the merge is committed, the bookmark lands whole
ok tether promote
out_matches "^  merged         b -> "
out_has "run \`tether commit\` to pin the merge result(s), then promote again"
ok tether commit -m "pin the merge"
ok tether promote
out_matches "^main -> [0-9a-f]{12}$"
eq "$(git rev-parse main)" "$(git rev-parse x)" "the trunk after the whole bookmark landed"
fails 2 tether promote --strategy sideways
