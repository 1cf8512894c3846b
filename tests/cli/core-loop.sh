#!/usr/bin/env bash
# The core loop on a directory of files: add, status, commit, change, status, commit,
# diff --content, verify.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/raw"
printf 'a\n' >"$TMP/raw/a.txt"
printf 'bb\n' >"$TMP/raw/b.txt"

ok tether add raw "$TMP/raw" --kind file --file versioned
out_has "added raw (file)"

ok tether status
out_matches '^dataset [0-9a-f]{12}; on trunk bookmark main$'
out_matches '^ +new  raw  \[file/observed\]$'

ok tether commit -m "first"
out_has "  recorded raw (not recoverable)"
out_matches '^committed [0-9a-f]{12}$'
eq "$(git log -1 --format=%s)" "first" "the dataset commit"
git ls-files --error-unmatch .tether/objects/raw.toml >/dev/null || fail "manifest not committed"
ls .tether/listings/*.jsonl >/dev/null 2>&1 || fail "no listing written"
git ls-files --error-unmatch .tether/listings >/dev/null || fail "listing not committed"

ok tether status --snapshot
out_matches '^ +clean  raw  \[file/observed\] unrecoverable$'

printf 'changed\n' >"$TMP/raw/a.txt"
printf 'new\n' >"$TMP/raw/c.txt"
ok tether status --snapshot
out_matches '^ +modified  raw'

ok tether commit -m "second"
ok tether diff HEAD~1 HEAD --content
out_matches '^ +changed  raw  \[\+1 -0 ~1 files\]$'
out_matches '^ +added  c.txt'
out_matches '^ +modified  a.txt'

ok tether diff HEAD~1 HEAD --content --json
eq "$(json 'j[0]["detail"]["added"]')" "1"
eq "$(json 'j[0]["why"]')" "['state']"

ok tether verify
out_matches '^ +ok  raw'
