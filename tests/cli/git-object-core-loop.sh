#!/usr/bin/env bash
# A second git repository tracked as a git object: commit pins it with a lightweight tag in
# that repository, a new commit there shows as modified and is pinned again, diff --content
# lists its files with line counts, verify checks the tags and reports one deleted by hand.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add code ../code --kind git
out_has "added code (git)"
grep -qx "uri = \"$TMP/code\"" .tether/objects/code.toml || fail "path not absolute: $(cat .tether/objects/code.toml)"
ok tether status --snapshot
out_matches '^ +new  code  \[git/forkable\]$'

ok tether commit -m first
out_matches "^  pinned code -> tether\.$id\.[0-9a-f]{16}$"
tag1=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
sha1=$(git -C "$TMP/code" rev-parse HEAD)
# a lightweight tag at the commit, in the code repository
eq "$(git -C "$TMP/code" cat-file -t "refs/tags/$tag1")" "commit" "tag type"
eq "$(git -C "$TMP/code" rev-parse "$tag1")" "$sha1" "tag target"
grep -qx "sha = \"$sha1\"" .tether/objects/code.toml || fail "state: $(cat .tether/objects/code.toml)"
ok tether commit -m again
out_has "nothing to commit"

# the code moves on
code_commit "$TMP/code" main.py 'print("v2")' >/dev/null
sha2=$(code_commit "$TMP/code" util.py 'def f(): pass')
ok tether status --snapshot
out_matches '^ +modified  code  \[git/forkable\]$'
ok tether commit -m second --json
tag2=$(json 'j["pinned"]["code"]')
[ "$tag2" != "$tag1" ] || fail "same tag for a new commit"
eq "$(git -C "$TMP/code" rev-parse "$tag2")" "$sha2" "second tag target"
eq "$(git -C "$TMP/code" tag -l 'tether.*' | sort)" "$(printf '%s\n' "$tag1" "$tag2" | sort)" "tags"

ok tether diff HEAD~1 HEAD --content
out_matches '^    changed  code  \[\+1 -0 ~1 files\]$'
out_matches '^ +modified  main\.py  \+1 -1$'
out_matches '^ +added  util\.py  \+1 -0$'
ok tether diff HEAD~1 HEAD --content --json
eq "$(json 'sorted(e["path"] for e in j[0]["detail"]["entries"])')" "['main.py', 'util.py']"

ok tether log code
out_matches "^  $sha2 .*$tag2"
out_matches "^  $sha1 .*$tag1"

ok tether verify
out_matches '^ +ok  code$'
ok tether verify -r HEAD~1
# a tag deleted by hand: that commit's pin is missing, the current one is fine
git -C "$TMP/code" tag -d "$tag1" >/dev/null
fails 1 tether verify -r HEAD~1
out_matches "^ +missing  code  $tag1 not found in $TMP/code$"
ok tether verify
