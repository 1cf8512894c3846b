#!/usr/bin/env bash
# diff compares HEAD with the working tree (no revision), REV with the working tree (one) or
# two revisions; objects are added, removed or changed.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add keep sys1 --kind memory
ok tether add drop sys2 --kind memory
ok tether commit -m c1
ok tether diff
eq "$OUT" ""
mem_edit sys1 advance >/dev/null
ok tether remove drop
ok tether add fresh sys3 --kind memory
# no revision: HEAD -> working tree (keep's new state is not in a manifest yet)
ok tether diff
out_matches '^ +removed  drop$'
out_matches '^ +added  fresh$'
out_lacks 'keep'
ok tether commit -m c2
ok tether diff
eq "$OUT" ""
# one revision: REV -> working tree
ok tether diff HEAD~1
out_matches '^    changed  keep$'
out_matches '^    removed  drop$'
out_matches '^      added  fresh$'
# two revisions, both ways
ok tether diff HEAD~1 HEAD
eq "$OUT" "$(printf '    removed  drop\n      added  fresh\n    changed  keep')"
ok tether diff HEAD HEAD~1
out_matches '^      added  drop$'
out_matches '^    removed  fresh$'
ok tether diff HEAD HEAD
eq "$OUT" ""
