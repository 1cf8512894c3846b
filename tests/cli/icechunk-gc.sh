#!/usr/bin/env bash
# Reclaiming Icechunk storage, cross-checked with the real Icechunk library: an abandoned
# try's pin is a tag gc deletes (real Icechunk no longer lists it) while the kept commit's
# tag stays; a promoted bookmark's working branch, once the bookmark is gone, is deleted by
# gc --prune-bookmarks (its head is pinned) and `undo` puts it back at its head; a tag deleted by hand is recreated by `repair` under the next
# generation name (Icechunk never reuses a deleted tag name) and verify accepts it.
. "$(dirname "$0")/lib.sh"
need_icechunk
repo="$TMP/arrays.icechunk"
icechunk create "$repo" 2 >/dev/null
s1=$(icechunk_snap write "$repo" main 0 "first data")
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add arrays "$repo" --kind icechunk
ok tether commit -m baseline --json
tag1=$(json 'j["pinned"]["arrays"]')
refs() { icechunk refs "$repo" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }
eq "$(refs "r['tags'].get('$tag1')")" "$s1" "the baseline pin"

# a try: a new snapshot, committed, then abandoned
s2=$(icechunk_snap write "$repo" main 1 "a try")
ok tether commit -m "try" --json
tag2=$(json 'j["pinned"]["arrays"]')
[ -n "$tag2" ] && [ "$tag2" != "$tag1" ] || fail "the try's pin: '$tag2'"
eq "$(refs "r['tags'].get('$tag2')")" "$s2" "the try's pin"
ok tether abandon HEAD
out_matches "^abandoned [0-9a-f]{12}$"
out_matches "^ +unpin  arrays  \[icechunk\] $tag2  no manifest in history references it$"
eq "$(refs "r['tags'].get('$tag2')")" "$s2" "abandon alone releases nothing"
ok tether gc
out_has "unpin  arrays  [icechunk] $tag2"
out_lacks "$tag1"
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  icechunk: ${tag2#tether.}"
eq "$(refs "'$tag2' in r['tags']")" False "real Icechunk still lists the released tag"
eq "$(refs "r['tags'].get('$tag1')")" "$s1" "the kept commit's pin"
ok tether verify --all-history
out_matches "^ +ok  [0-9a-f]{12}:arrays$"
ok tether gc
out_has "gc: nothing to do"

# a bookmark's working branch, once the bookmark is gone (main first goes back to where the
# kept history says it is: the try is thrown away in the store too)
icechunk reset "$repo" main "$s1" >/dev/null
fork="tether.ws.$ds.reread"
ok tether new -b reread
ok tether open arrays
s3=$(icechunk_snap write "$repo" "$fork" 1 "re-read")
ok tether commit -m "re-read" --json
tag3=$(json 'j["pinned"]["arrays"]')
ok tether promote
ok tether new main
git branch -q -D reread
ok tether gc --prune-bookmarks
out_matches "^ +delete-branch  arrays  \[icechunk\] $fork  bookmark reread \(gone\); head is pinned$"
out_lacks "unpin"
eq "$(refs "r['branches'].get('$fork')")" "$s3" "the dry run deleted the branch"
ok tether gc --prune-bookmarks --no-dry-run
out_has "deleted 1 working branch(es)"
out_has "  arrays: $fork"
eq "$(refs "'$fork' in r['branches']")" False "real Icechunk still lists the deleted branch"
eq "$(refs "r['tags'].get('$tag3')")" "$s3" "the trunk's pin"
ok tether undo
out_has "  restored   arrays: $fork recreated at"
eq "$(refs "r['branches'].get('$fork')")" "$s3" "undo of gc: the branch back at its head"

# a tag deleted by hand: repair recreates it under the next generation
icechunk delete-tag "$repo" "$tag1" >/dev/null
git checkout -q HEAD~0
ok tether repair --all-history --dry-run
out_matches "repin .*$tag1"
ok tether repair --all-history
out_has "repinned"
eq "$(refs "r['tags'].get('$tag1.2')")" "$s1" "the recreated pin, as real Icechunk sees it"
ok tether verify --all-history
out_has "pinned as $tag1.2"
