#!/usr/bin/env bash
# add stores a relative path as an absolute one (resolved against the current directory),
# adds --set fields to the locator, and writes the policies.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$DS/data/raw" sub && echo x >"$DS/data/raw/x"
cd sub
ok tether add raw ../data/raw --kind file --set note=hello --set extra=a=b
eq "$OUT" "added raw (file)"
cd "$DS"
m=.tether/objects/raw.toml
[ -f "$m" ] || fail "no manifest"
grep -qx 'key = "raw"' "$m" || fail "manifest key"
grep -qx 'kind = "file"' "$m" || fail "manifest kind"
grep -qx "uri = \"$DS/data/raw\"" "$m" || fail "locator not absolute: $(cat "$m")"
grep -qx 'note = "hello"' "$m" || fail "--set field missing: $(cat "$m")"
grep -qx 'extra = "a=b"' "$m" || fail "--set value with '=' mangled: $(cat "$m")"
grep -qx 'file = "immutable"' "$m" || fail "default file policy"
grep -qx 'pin = "native"' "$m" || fail "default pin policy"
! grep -q '^\[state\]' "$m" || fail "add recorded a state"
# the op log records it
grep -q '"command":"add"' <<<"$(tail -n 2 .tether/ops.jsonl)" || fail "no add op logged"

ok tether add nested/one/raw2 data/raw --kind file --file versioned --pin record
grep -qx "uri = \"$DS/data/raw\"" .tether/objects/nested/one/raw2.toml || fail "nested manifest"
grep -qx 'file = "versioned"' .tether/objects/nested/one/raw2.toml || fail "--file versioned"
grep -qx 'pin = "record"' .tether/objects/nested/one/raw2.toml || fail "--pin record"
