#!/usr/bin/env bash
# Two datasets (two repositories, each `tether init`) track the same code repository as a git
# object, so both put pins there. gc in one dataset releases only its own unreferenced pin:
# the other dataset's tags are left alone (and counted in a note); gc in the other dataset,
# where everything is referenced, releases nothing.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$TMP/code" tag -l "tether.$1.*" | sort; }
pinned() { json "j['pinned']['$1']"; }
new_code_repo "$TMP/code"
dataset() {
  mkdir -p "$1"
  cd "$1"
  git init -q -b main
  git commit -q --allow-empty -m "initial"
  ok tether init
  ok tether add code ../code --kind git
}
dataset "$TMP/ds2"
id2=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
dataset "$TMP/ds1"
id1=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
[ "$id1" != "$id2" ] || fail "the two datasets share an id"

# dataset 1: commits at v1, v2, v3; dataset 2: commits at v2 and v3 (the same code states)
ok tether commit -m one-1 --json
t1a=$(pinned code)
code_commit "$TMP/code" main.py 'print("v2")' >/dev/null
ok tether commit -m one-2 --json
t1b=$(pinned code)
cd "$TMP/ds2"
ok tether commit -m two-1 --json
t2a=$(pinned code)
cd "$TMP/ds1"
code_commit "$TMP/code" main.py 'print("v3")' >/dev/null
ok tether commit -m one-3 --json
t1c=$(pinned code)
cd "$TMP/ds2"
ok tether commit -m two-2 --json
t2b=$(pinned code)
[[ "$t2a" == "tether.$id2."* && "$t1b" == "tether.$id1."* ]] || fail "pins not named after their dataset: $t1b $t2a"
ds2_tags=$(tags "$id2")
eq "$ds2_tags" "$(printf '%s\n' "$t2a" "$t2b" | sort)" "dataset 2's tags"
eq "$(tags "$id1")" "$(printf '%s\n' "$t1a" "$t1b" "$t1c" | sort)" "dataset 1's tags"
# the same commit carries a tag of each dataset
eq "$(git -C "$TMP/code" rev-parse "$t1b")" "$(git -C "$TMP/code" rev-parse "$t2a")" "v2 tags"

# dataset 1 abandons its v2 commit
cd "$TMP/ds1"
ok tether abandon HEAD~1
ok tether gc
out_has "plan: gc (1 write(s))"
out_has "code: 2 pin(s) of other datasets left alone"
out_has "$t1b"
out_lacks "tether.$id2."
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${t1b#tether.}"
eq "$(grep -c '^  git: ' <<<"$OUT")" "1" "released pins"
eq "$(tags "$id1")" "$(printf '%s\n' "$t1a" "$t1c" | sort)" "dataset 1's tags after its gc"
eq "$(tags "$id2")" "$ds2_tags" "dataset 2's tags after dataset 1's gc"
ok tether verify --all-history

# dataset 2: everything is referenced, and dataset 1's pins are not its to release
cd "$TMP/ds2"
ok tether gc
out_has "gc: nothing to do"
out_has "code: 2 pin(s) of other datasets left alone"
ok tether gc --no-dry-run --release-foreign
out_has "unpinned 0 pin(s)"
eq "$(tags "$id1")" "$(printf '%s\n' "$t1a" "$t1c" | sort)" "dataset 1's tags after dataset 2's gc"
eq "$(tags "$id2")" "$ds2_tags" "dataset 2's tags after its gc"
ok tether verify --all-history
