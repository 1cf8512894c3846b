#!/usr/bin/env bash
# `gc --delete-stores` (experimental) deletes only the stores `add --create` made for this
# dataset (the created-stores index in the git dir says which) that no manifest names, in
# history or a checkout, and that hold nothing but their initial state: a dry run by
# default, asked again right before the deletion, never undone. A store with data in it, one
# a commit names, one whose owner marker names another dataset, and a directory without a
# marker named by --store all stay. A malformed line in the index is skipped.
. "$(dirname "$0")/lib.sh"
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
index="$(git rev-parse --git-common-dir)/tether-created.jsonl"
indexed() { python3 -c '
import json, sys
for line in open(sys.argv[1]):
    try: print(json.loads(line)["key"])
    except Exception: pass' "$index" | sort | tr '\n' ' '; }

ok tether add kept ../kept.git --kind git --create
ok tether commit -m "kept is committed"
ok tether add raw ../raw --kind file --create
err_has "note: the store lifecycle (\`--create\`, \`gc --delete-stores\`) is experimental"
ok tether add code ../code.git --kind git --create
ok tether add theirs ../theirs --kind file --create
eq "$(indexed)" "code kept raw theirs " "the created-stores index after add --create"
eq "$(python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][1]; print(r["dataset_id"], r["kind"], r["identity"]["uri"], r["bookmark"])' "$index")" \
   "$id file $TMP/raw main"
for k in raw code kept theirs; do ok tether remove "$k"; done
ok tether commit -m "all removed"
echo "data" > "$TMP/code.git/notes.txt"      # written into a created store: data
echo "ffffffff" > "$TMP/theirs/.tether-owner"  # the marker names another dataset
echo '{"dataset_id": "'"$id"'", "kind": "file", "key": ' >> "$index"   # torn line: skipped

# Without the flag, gc asks no store about deleting it.
ok tether gc
out_lacks "store"

remember_state
ok tether gc --delete-stores
err_has "note: reclaiming created stores is experimental: \`delete-store\` has no \`repair\`; fetch every bookmark first, and read the plan"
out_matches "^ +delete-store  raw +\[file\] $TMP/raw  made by \`add --create\` on main; no manifest names it and nothing else is in it$"
out_matches "^ +keep-store  code +\[git\] $TMP/code.git  holds more than its initial state and tether's refs "
out_has "1 created store(s) still named by a manifest (in history or a checkout) are kept"
out_has "theirs: its owner marker names dataset ffffffff; left alone"
out_lacks "kept.git"
unchanged "gc --delete-stores is a dry run"
[ -d "$TMP/raw" ] || fail "the dry run deleted raw"

fails 1 tether gc --store nonsense
eq "$ERR" "error: --store expects KIND=LOCATOR, got 'nonsense'"
mkdir -p "$TMP/plain" && echo keep > "$TMP/plain/f"
ok tether gc --store "file=../plain"
out_has "$TMP/plain: no owner marker of tether's is in it; not deleted"

# A plan saved, then data written into the store: applying it is refused, nothing deleted.
ok tether gc --delete-stores --plan "$TMP/gc.json"
echo late > "$TMP/raw/late.txt"
fails 1 tether gc --from-plan "$TMP/gc.json"
err_has "re-run the plan"
[ -f "$TMP/raw/late.txt" ] || fail "the refused plan touched raw"
rm "$TMP/raw/late.txt"

ok tether gc --delete-stores --no-dry-run --json
eq "$(json 'j["deleted_stores"]')" "{'raw': '$TMP/raw'}"
eq "$(json 'sorted(j["kept_stores"])')" "['code']"
[ ! -e "$TMP/raw" ] || fail "raw was not deleted"
[ -f "$TMP/code.git/notes.txt" ] || fail "code's data is gone"
[ -d "$TMP/kept.git" ] && [ -d "$TMP/theirs" ] || fail "a store that stays was deleted"
eq "$(indexed)" "code kept theirs " "a deleted store leaves the index"

ok tether ops
out_matches "gc +.*deleted 1 store"
fails 1 tether undo
err_has "store $TMP/raw (raw): deleted with everything in it; nothing brings it back"
ok tether gc --delete-stores --no-dry-run
out_lacks "deleted 1 created store"

# A store deleted by hand is forgotten: nothing of tether's is left in it.
rm -rf "$TMP/code.git"
ok tether gc --delete-stores --no-dry-run
out_has "forgot 1 store(s) with nothing of tether's left in them"
eq "$(indexed)" "kept theirs "
