#!/usr/bin/env bash
# An Icechunk repository in an S3 bucket (the throwaway Ceph gateway), written by the real
# Icechunk library and tracked by its s3:// URI, with the endpoint and keys only in
# .tether/secrets.toml: status, commit (a tag real Icechunk lists), `new -b`, a writable
# open (the branch, at the pinned snapshot, as real Icechunk sees it), a real write on the
# fork, commit, promote (main fast-forwarded in the bucket), diff, log, verify; an abandoned
# try's tag removed by gc; a repository created with --create that real Icechunk commits to;
# garbage planted as a repo object, and wrong keys, each as one line naming the object (and
# the secrets rule), nothing written.
. "$(dirname "$0")/lib.sh"
need_s3
need_icechunk
bucket=$(s3_bucket icechunk)
repo="s3://$bucket/lab/arrays.icechunk"
icechunk create "$repo" 2 >/dev/null
s1=$(icechunk_snap write "$repo" main 0 "first data")
# From here on tether has no credentials or endpoint in its environment: only the secrets.
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
s3_secrets "$bucket"
refs() { icechunk refs "$repo" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }

ok tether add arrays "$repo" --kind icechunk
out_has "added arrays (icechunk)"
grep -qx "uri = \"$repo\"" .tether/objects/arrays.toml || fail "locator: $(cat .tether/objects/arrays.toml)"
ok tether status --snapshot
out_matches '^ +new  arrays  \[icechunk/forkable\]$'
ok tether commit -m baseline --json
tag1=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag1')")" "$s1" "the pin, as real Icechunk sees it"
grep -qx "snapshot_id = \"$s1\"" .tether/objects/arrays.toml || fail "state"

fork="tether.ws.$ds.reread"
ok tether new -b reread
out_has "  arrays -> $fork  (created on first writable open)"
ok tether open arrays --json
eq "$(json 'j["read_only"]')" False
eq "$(json 'j["address"]')" "$repo#$fork"
eq "$(json 'j["handle"]["bucket"] + " " + j["handle"]["prefix"]')" "$bucket lab/arrays.icechunk"
if grep -q "$TETHER_TEST_S3_SECRET_ACCESS_KEY" <<<"$OUT$ERR"; then fail "a secret in open's output"; fi
eq "$(refs "r['branches'].get('$fork')")" "$s1" "the fork, as real Icechunk sees it"

s2=$(icechunk_snap write "$repo" "$fork" 1 "re-read plate 1")
ok tether status --snapshot
out_matches '^ +modified  arrays  \[icechunk/forkable\]$'
ok tether commit -m "re-read" --json
tag2=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag2')")" "$s2" "the pin of the fork's head"
ok tether diff HEAD~1 HEAD --content
out_matches '^ +modified  /data  1 chunk written$'
out_matches '^ +added  /g1  group$'
ok tether log arrays
out_matches "^  $s2 .* re-read plate 1  \[$fork, $tag2\]$"
ok tether promote
out_has "  fast-forwarded arrays -> {'snapshot_id': '$s2'}"
eq "$(refs "r['branches']['main']")" "$s2" "main after promote, as real Icechunk sees it"
ok tether verify
out_matches '^ +ok  arrays$'

# a try on main, committed, abandoned and collected: its tag leaves the bucket
ok tether new main
s3=$(icechunk_snap write "$repo" main 2 "a try")
ok tether commit -m "try" --json
tag3=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag3')")" "$s3" "the try's pin"
ok tether abandon HEAD
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
eq "$(refs "'$tag3' in r['tags']")" False "real Icechunk still lists the released tag"
eq "$(refs "r['tags'].get('$tag2')")" "$s2" "the kept commit's pin"

# a repository created in the bucket by tether, committed to by real Icechunk
fresh="s3://$bucket/lab/fresh.icechunk"
ok tether add fresh "$fresh" --kind icechunk --create
out_has "added fresh (icechunk, created)"
f1=$(icechunk_snap write "$fresh" main 0 "real write into a created repository")
ok tether commit -m "fresh data" --json
eq "$(icechunk refs "$fresh" | python3 -c 'import json,sys; print(list(json.load(sys.stdin)["tags"].values())[0])')" "$f1" "fresh's pin"

# a hostile store: garbage where fresh's repo object was is one line naming that object
s3cli() {
  AWS_ACCESS_KEY_ID=$TETHER_TEST_S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$TETHER_TEST_S3_SECRET_ACCESS_KEY \
    /usr/bin/aws --endpoint-url "$TETHER_TEST_S3_ENDPOINT" s3 cp --quiet "$@"
}
s3cli "s3://$bucket/lab/fresh.icechunk/repo" "$TMP/fresh-repo"
printf 'garbage\0\377 not icechunk' >"$TMP/garbage"
s3cli "$TMP/garbage" "s3://$bucket/lab/fresh.icechunk/repo"
remember_state
fails 1 tether verify
out_matches '^ +ok  arrays$'
out_matches "^ +unknown  fresh  s3://$bucket/lab/fresh.icechunk/repo is not an Icechunk metadata file"
unchanged "verify of a garbage repo object"
s3cli "$TMP/fresh-repo" "s3://$bucket/lab/fresh.icechunk/repo"
ok tether verify

# wrong keys: one line naming the object and the secrets rule; nothing written
sed -i "s/^secret_access_key = .*/secret_access_key = \"wrongwrongwrong\"/" .tether/secrets.toml
remember_state
fails 1 tether commit -m "no keys"
err_lines 1
err_matches "^error: .*s3://$bucket/lab/arrays.icechunk.*access denied.*\[uris\.\"s3://$bucket/\"\]"
if grep -q "wrongwrongwrong" <<<"$OUT$ERR"; then fail "a secret in the error"; fi
unchanged "a commit without access"
