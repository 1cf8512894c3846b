#!/usr/bin/env bash
# A DuckLake catalog in SQLite whose data files are in an S3 bucket (the throwaway Ceph gateway
# of tests/s3/with-cluster; skipped without it): the bucket's keys come from a secrets rule,
# verify --deep lists the data path once and finds every file, then misses the one the AWS CLI
# removed; open still prints the ATTACH statement; keys the store refuses give unknown with the
# way out; no key is written anywhere tether writes.
. "$(dirname "$0")/lib.sh"
[ -n "${TETHER_TEST_S3_ENDPOINT:-}" ] || { echo "no S3 cluster: skipped"; exit 77; }
fixtures=$(cd "$(dirname "$0")/../.." && pwd)/../shared/fixtures/ducklake
[ -d "$fixtures" ] || { echo "no DuckLake fixtures at $fixtures: skipped"; exit 77; }
s3() { /usr/bin/aws --endpoint-url "$TETHER_TEST_S3_ENDPOINT" "$@"; }
bucket=cli-lake-$$
s3 s3api create-bucket --bucket "$bucket" >/dev/null || fail "create-bucket"
s3 s3 cp --quiet --recursive "$fixtures/duckdb/delete_ignore_extra_columns" "s3://$bucket/lake/" || fail "upload"
sqlite3 "$TMP/dec.sqlite" <"$fixtures/sqlite/delete_ignore_extra_columns.sql" || fail "catalog"
# tether gets the keys from secrets.toml only (the AWS CLI keeps the environment's).
tether() { env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$TETHER" "$@"; }

new_dataset
cat >.tether/secrets.toml <<TOML
[uris."s3://$bucket/"]
endpoint = "$TETHER_TEST_S3_ENDPOINT"
access_key_id = "$TETHER_TEST_S3_ACCESS_KEY_ID"
secret_access_key = "$TETHER_TEST_S3_SECRET_ACCESS_KEY"
region = "$TETHER_TEST_S3_REGION"
allow_http = true
TOML
ok tether add dec "ducklake:sqlite:$TMP/dec.sqlite" --kind ducklake --set "data_path=s3://$bucket/lake/"
ok tether commit -m "lake with S3 data"
ok tether verify --deep
out_matches '^ +ok  dec$'
ok tether open dec
out_has "ATTACH 'ducklake:sqlite:$TMP/dec.sqlite'"

data=$(s3 s3api list-objects-v2 --bucket "$bucket" --prefix lake/ --query 'Contents[].Key' --output text | tr '\t' '\n' | grep -v -- -delete)
[ -n "$data" ] || fail "no data file listed"
s3 s3 rm --quiet "s3://$bucket/$data" || fail "rm"
fails 1 tether verify --deep
out_matches "^ +missing  dec  1 of 2 files visible at snapshot 2 are gone, e\.g\. s3://$bucket/$data$"
ok tether verify  # the catalog alone still has the snapshot
out_matches '^ +ok  dec$'

# Wrong keys: nothing is said about the files (unknown), and the message says where keys go.
sed -i 's/^secret_access_key = .*/secret_access_key = "not-the-secret-at-all"/' .tether/secrets.toml
run tether verify --deep
out_matches "^ +unknown  dec  data files not checked: .*access denied \(HTTP 403"
out_has ".tether/secrets.toml [uris.\"s3://$bucket/\"]"
out_lacks "not-the-secret-at-all"

# The keys are in secrets.toml alone: not in manifests, history, the op log or any output.
grep -rqF "$TETHER_TEST_S3_SECRET_ACCESS_KEY" .tether/objects .tether/ops* .git 2>/dev/null && fail "a key was written"
grep -qF "$TETHER_TEST_S3_SECRET_ACCESS_KEY" <<<"$OUT$ERR" && fail "a key was printed"
exit 0
