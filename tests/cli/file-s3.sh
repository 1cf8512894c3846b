#!/usr/bin/env bash
# The file backend on a real object store (the throwaway Ceph object gateway of tests/s3; run
# through tests/s3/with-cluster, skipped without it): add/status/commit/diff/verify/open of an
# S3 prefix and of a versioned object (its version deleted: verify says missing), credentials
# from .tether/secrets.toml and from the environment; wrong keys, an endpoint nothing answers
# on and a missing bucket are one-line errors naming the object and the secrets rule, and
# write nothing; an endpoint in the committed tether.toml, or in a manifest's locator, never
# receives a request. Objects are written and read back with Debian's AWS CLI.
. "$(dirname "$0")/lib.sh"
[ -n "${TETHER_TEST_S3_ENDPOINT:-}" ] && [ -x /usr/bin/aws ] || { echo "SKIP [$SCENARIO]: no object store (tests/s3/with-cluster)" >&2; exit 77; }
E=$TETHER_TEST_S3_ENDPOINT KEY=$TETHER_TEST_S3_ACCESS_KEY_ID SECRET=$TETHER_TEST_S3_SECRET_ACCESS_KEY REGION=$TETHER_TEST_S3_REGION

# tether sees no AWS_* variable unless a step sets it: credentials come from secrets.toml.
tether() { env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u AWS_DEFAULT_REGION -u AWS_ENDPOINT_URL \
  -u AWS_CONFIG_FILE -u AWS_SHARED_CREDENTIALS_FILE "$TETHER" "$@"; }
s3api() { /usr/bin/aws --endpoint-url "$E" --output json s3api "$@"; }
put() { printf '%s' "$3" >"$TMP/body"; s3api put-object --bucket "$1" --key "$2" --body "$TMP/body"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

id=$$-$RANDOM
bucket=tf-cli-$id vbucket=tf-cli-v-$id
s3api create-bucket --bucket "$bucket" >/dev/null
s3api create-bucket --bucket "$vbucket" >/dev/null
s3api put-bucket-versioning --bucket "$vbucket" --versioning-configuration Status=Enabled || fail "put-bucket-versioning"
eq "$(s3api get-bucket-versioning --bucket "$vbucket" | field '["Status"]')" Enabled "versioning of $vbucket"

# rule BUCKET [SECRET] [ENDPOINT]: one [uris."s3://BUCKET/"] table.
rule() {
  printf '[uris."s3://%s/"]\nendpoint = "%s"\naccess_key_id = "%s"\nsecret_access_key = "%s"\nregion = "%s"\nallow_http = true\n\n' \
    "$1" "${3:-$E}" "$KEY" "${2:-$SECRET}" "$REGION"
}
write_secrets() { cat >.tether/secrets.toml; chmod 600 .tether/secrets.toml; }

new_dataset
{ rule "$bucket"; rule "$vbucket"; } | write_secrets

# --- a prefix ----------------------------------------------------------------------------
put "$bucket" run/a.csv "a,1" >/dev/null
put "$bucket" run/b.csv "b,22" >/dev/null
put "$bucket" run/sub/c.csv "c,333" >/dev/null
put "$bucket" outside.txt "not in the prefix" >/dev/null
ok tether add run "s3://$bucket/run/" --kind file --file versioned
ok tether status --snapshot
out_matches '^ +new  run  \[file/observed\]'
ok tether commit -m first
ok tether status --snapshot
out_matches '^ +clean  run  '
m=.tether/objects/run.toml
grep -q '^type = "prefix"' "$m" || fail "no prefix state in $m: $(cat "$m")"
grep -q '^count = 3' "$m" || fail "count is not 3: $(cat "$m")"
ls .tether/listings/*.jsonl >/dev/null || fail "no listing stored"
grep -qF "\"p\":\"run/sub/c.csv\"" .tether/listings/*.jsonl || fail "the listing lacks run/sub/c.csv"

put "$bucket" run/a.csv "a,1 changed" >/dev/null
s3api delete-object --bucket "$bucket" --key run/b.csv >/dev/null
put "$bucket" run/d.csv "d" >/dev/null
fails 1 tether verify
out_matches '^ +drifted  run  .*content changed since commit'
ok tether status --snapshot
out_matches '^ +modified  run  '
ok tether commit -m second
ok tether diff HEAD~1 HEAD --content
out_matches '^    changed  run  \[\+1 -1 ~1 files\]$'
out_matches '^ {14}    added  run/d\.csv'
out_matches '^ {14}  removed  run/b\.csv'
out_matches '^ {14} modified  run/a\.csv'
ok tether verify
out_matches '^ +ok  run$'
ok tether open run
eq "$OUT" "s3://$bucket/run/"

# --- a versioned object --------------------------------------------------------------------
v1=$(put "$vbucket" model.bin "weights one" | field '["VersionId"]')
[ -n "$v1" ] || fail "no version id from put-object"
ok tether add model "s3://$vbucket/model.bin" --kind file --file versioned
ok tether status --snapshot
out_matches '^ +new  model  \[file/addressable\]'
ok tether commit -m "model one"
v2=$(put "$vbucket" model.bin "weights two!" | field '["VersionId"]')
[ -n "$v2" ] || fail "no version id from the second put-object"
ok tether commit -m "model two"
ok tether open model --json
eq "$(json 'j["handle"]["version_id"]')" "$v2"
ok tether open model -r HEAD~1 --json
eq "$(json 'j["handle"]["version_id"]')" "$v1"
eq "$(json 'j["handle"]["uri"]')" "s3://$vbucket/model.bin"
ok tether verify --deep
out_matches '^ +ok  model$'
ok tether verify --all-history --deep
s3api delete-object --bucket "$vbucket" --key model.bin --version-id="$v2" >/dev/null
fails 1 tether verify --deep
out_matches "^ +missing  model  version $v2 of s3://$vbucket/model.bin no longer exists"

# --- credentials from the environment --------------------------------------------------------
rm .tether/secrets.toml
run env AWS_ENDPOINT_URL="$E" AWS_ACCESS_KEY_ID="$KEY" AWS_SECRET_ACCESS_KEY="$SECRET" AWS_REGION="$REGION" \
  AWS_ALLOW_HTTP=true "$TETHER" status --snapshot
[ "$RC" -eq 0 ] || fail "status with AWS_* credentials failed (exit $RC)"
out_matches '^ +clean  run  '

# --- errors: one line naming the object and the secrets rule; nothing written ------------------
# check_refused WHAT: status and commit fail for `run`, and nothing changes.
# (status records what it saw in the workspace; the commit must write nothing.)
check_refused() {
  put "$bucket" run/e.csv "e" >/dev/null  # something to commit, if it could be read
  fails 1 tether status --snapshot
  err_lines 1
  err_matches "^error: \[run\] (LIST )?s3://$bucket/run/: .*$1"
  IGNORE_OPLOG=1 remember_state
  fails 1 tether commit -m "not written"
  err_has "s3://$bucket/run/"
  grep -q "$SECRET" <<<"$OUT$ERR" && fail "a secret in the output"
  IGNORE_OPLOG=1 unchanged "$1"
  s3api delete-object --bucket "$bucket" --key run/e.csv >/dev/null
}
{ rule "$bucket" "WRONGsecretWRONGsecretWRONGsecret00000000"; rule "$vbucket"; } | write_secrets
check_refused "access denied \(HTTP 403 [A-Za-z]+; credentials from the store options\); give the store's keys in \.tether/secrets\.toml \[uris\.\"s3://$bucket/\"\] \(access_key_id, secret_access_key\) or in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY$"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
{ rule "$bucket" "" "http://127.0.0.1:$port"; rule "$vbucket"; } | write_secrets
check_refused "cannot reach the store: .*; check the endpoint: \`endpoint\` in \.tether/secrets\.toml \[uris\.\"s3://$bucket/\"\] or AWS_ENDPOINT_URL$"
{ rule "$bucket"; rule "$vbucket"; } | write_secrets
ok tether status --snapshot

new_ds2() { DS="$TMP/$1"; mkdir -p "$DS"; cd "$DS"; git init -q -b main; git commit -q --allow-empty -m initial; ok tether init; }
new_ds2 ds-nobucket
rule "tf-cli-gone-$id" | write_secrets
ok tether add gone "s3://tf-cli-gone-$id/p/" --kind file
remember_state
fails 1 tether commit -m "not written"
err_lines 1
err_matches "^error: \[gone\] LIST s3://tf-cli-gone-$id/p/: the bucket does not exist \(HTTP 404 NoSuchBucket\); create it, or point \`endpoint\` in \.tether/secrets\.toml \[uris\.\"s3://tf-cli-gone-$id/\"\]"
unchanged "missing bucket"
[ -z "$(git log --format=%s | grep -v initial || true)" ] || fail "a commit was made"

# --- hostile committed configuration and manifests ------------------------------------------------
# A listener that records every connection: nothing may reach it.
listener_log=$TMP/listener.log
: >"$listener_log"
python3 - "$listener_log" >"$TMP/listener.port" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    open(sys.argv[1], "a").write("connection\n")
    c.close()
PY
listener=$!
trap 'kill $listener 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 50); do [ -s "$TMP/listener.port" ] && break; sleep 0.1; done
evil="http://127.0.0.1:$(cat "$TMP/listener.port")"
# The listener does record a connection (so an empty log below means none was made).
python3 -c "import socket; socket.create_connection(('127.0.0.1', $(cat "$TMP/listener.port"))).close()"
for _ in $(seq 50); do [ -s "$listener_log" ] && break; sleep 0.1; done
[ -s "$listener_log" ] || fail "the listener records nothing"
: >"$listener_log"

new_ds2 ds-hostile
rule "$bucket" | write_secrets
ok tether add run "s3://$bucket/run/" --kind file --file versioned
ok tether commit -m first
cp tether.toml "$TMP/tether.toml.orig"
printf '\n[backends.file.storage_options]\nendpoint = "%s"\n' "$evil" >>tether.toml
put "$bucket" run/f.csv "f" >/dev/null  # something to commit, if it could be read
fails 1 tether status --snapshot
err_lines 1
err_has "tether.toml [backends.file] sets storage_options.endpoint; a committed file arrives with every clone"
remember_state
fails 1 tether commit -m "not written"
err_has "sets storage_options.endpoint"
unchanged "committed endpoint"
[ ! -s "$listener_log" ] || fail "the committed endpoint received $(wc -l <"$listener_log") connection(s)"
cp "$TMP/tether.toml.orig" tether.toml
# A manifest naming its own endpoint (a hostile clone): the locator's endpoint is no option.
sed -i "s|^uri = .*|&\nendpoint = \"$evil\"\naws_endpoint_url = \"$evil\"|" .tether/objects/run.toml
grep -q "^endpoint = \"$evil\"" .tether/objects/run.toml || fail "the manifest edit did not apply: $(cat .tether/objects/run.toml)"
ok tether status --snapshot
out_matches '^ +modified  run  '  # the store was read (run/f.csv is new), at the secrets' endpoint
[ ! -s "$listener_log" ] || fail "the hostile endpoint received $(wc -l <"$listener_log") connection(s)"
