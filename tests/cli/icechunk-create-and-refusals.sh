#!/usr/bin/env bash
# add --create makes an empty Icechunk repository real Icechunk can commit to, owned by the
# dataset; what the icechunk backend refuses at add comes as one line naming the object.
. "$(dirname "$0")/lib.sh"
need_icechunk
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add fresh "$TMP/fresh.icechunk" --kind icechunk --create
out_has "added fresh (icechunk, created)"
s1=$(icechunk_snap write "$TMP/fresh.icechunk" main 0 "real write into a created repository")
ok tether commit -m "fresh data" --json
eq "$(json 'j["pinned"]["fresh"]')" "$(icechunk refs "$TMP/fresh.icechunk" | python3 -c 'import json,sys; print(list(json.load(sys.stdin)["tags"])[0])')" "pin"
grep -qx "snapshot_id = \"$s1\"" .tether/objects/fresh.toml || fail "state"
# Without a key: the repository's name less `.icechunk` (a trailing slash too).
ok tether add "$TMP/greetings.icechunk/" --kind icechunk --create
out_has "added greetings (icechunk, created)"

mkdir -p "$TMP/plain"
remember_state
refused() {
  fails 1 tether add "$@"
  err_lines 1
  unchanged "tether add $*"
}
# An object store that does not answer: one line naming the object and where the endpoint
# and credentials are configured (and no request anywhere else: the endpoint is the user's).
AWS_ENDPOINT_URL=https://127.0.0.1:1 AWS_ACCESS_KEY_ID=AKIDTETHERTEST AWS_SECRET_ACCESS_KEY=sEcReTtEtHeR \
  refused s3 s3://bucket/repo.icechunk --kind icechunk
err_matches "^error: \[s3\] s3://bucket/repo.icechunk: .*cannot reach the store.*\[uris.\"s3://bucket/\"\].*AWS_ENDPOINT_URL"
if grep -q "sEcReTtEtHeR" <<<"$ERR"; then fail "a secret in the error"; fi
refused web https://example.invalid/repo.icechunk --kind icechunk
err_matches "^error: \[web\] icechunk uri https://example.invalid/repo.icechunk: Icechunk repositories are read and written through an object store"
refused plain "$TMP/plain" --kind icechunk
err_matches "^error: \[plain\] $TMP/plain is not an Icechunk repository"
refused side "$TMP/fresh.icechunk" --kind icechunk --branch nope
err_matches "^error: \[side\] branch nope does not exist in $TMP/fresh.icechunk$"
refused old "$TMP/fresh.icechunk" --kind icechunk --at NOSUCHTAG
err_matches "^error: \[old\] 'NOSUCHTAG' is neither a snapshot, a tag nor a branch of $TMP/fresh.icechunk$"
refused again "$TMP/fresh.icechunk" --kind icechunk --create
err_matches "already exists"
