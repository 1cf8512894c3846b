#!/usr/bin/env bash
# An Icechunk object through a bookmark, with the real Icechunk library doing the writes:
# `new -b` decides the fork, a writable open creates the branch (real Icechunk lists it at
# the pinned snapshot), real Icechunk commits onto the fork, `tether commit` pins it, and
# promote fast-forwards main (as real Icechunk sees it). A second bookmark whose base moved
# meanwhile is refused (Icechunk has no merge), naming the hint, and main stays put.
. "$(dirname "$0")/lib.sh"
need_icechunk
repo="$TMP/arrays.icechunk"
icechunk create "$repo" 2 >/dev/null
s1=$(icechunk_snap write "$repo" main 0 "first data")
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add arrays "$repo" --kind icechunk
ok tether commit -m baseline
refs() { icechunk refs "$repo" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }

fork="tether.ws.$ds.reread"
ok tether new -b reread
out_has "  arrays -> $fork  (created on first writable open)"
eq "$(refs "r['branches'].get('$fork')")" None "the branch before the first writable open"
ok tether open arrays --json
eq "$(json 'j["read_only"]')" False
eq "$(json 'j["address"]')" "$repo#$fork"
eq "$(refs "r['branches'].get('$fork')")" "$s1" "the fork, as real Icechunk sees it"

s2=$(icechunk_snap write "$repo" "$fork" 1 "re-read plate 1")
eq "$(refs "r['branches']['main']")" "$s1" "main moved with a write to the fork"
ok tether status --snapshot
out_matches '^ +modified  arrays  \[icechunk/forkable\]$'
ok tether commit -m "re-read" --json
tag=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag')")" "$s2" "the pin of the fork's head"

ok tether promote
out_has "  fast-forwarded arrays -> {'snapshot_id': '$s2'}"
out_matches '^main -> [0-9a-f]{12}$'
eq "$(refs "r['branches']['main']")" "$s2" "main after promote, as real Icechunk sees it"
eq "$(git rev-parse main)" "$(git rev-parse reread)" "the trunk"

# a second bookmark; main moves under it (another writer), so it cannot fast-forward
ok tether new -b second
ok tether open arrays
fork2="tether.ws.$ds.second"
icechunk_snap write "$repo" "$fork2" 2 "second bookmark" >/dev/null
ok tether commit -m "second"
s_main=$(icechunk_snap write "$repo" main 3 "someone else")
remember_state
fails 1 tether promote
out_matches "^  refused        arrays: main moved since the fork \(snapshot_id=${s2:0:16}… -> snapshot_id=${s_main:0:16}…\) and the backend cannot merge; "
eq "$(refs "r['branches']['main']")" "$s_main" "a refused promote moved main"
unchanged "a refused promote"
