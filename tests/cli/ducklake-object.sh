#!/usr/bin/env bash
# A DuckLake catalog in SQLite (made by the catalog builder, as the extension writes one)
# tracked as a ducklake object: add makes the path absolute, commit records the snapshot
# (recoverable, no pin: DuckLake has no tags), a new snapshot shows as modified, diff
# --content counts rows per table from metadata, log lists the snapshots, open -r prints the
# ATTACH statement of the older state, and once retention expires that snapshot, verify
# reports the older commit's state missing while the newer one stays ok.
. "$(dirname "$0")/lib.sh"
: "${DUCKLAKE_LAKE:?DUCKLAKE_LAKE must point at the built ducklake-lake tool}"
lake() { "$DUCKLAKE_LAKE" "$@"; }
lake create "$TMP/lake.db" >/dev/null
lake create-table "$TMP/lake.db" t >/dev/null
s2=$(lake insert "$TMP/lake.db" t 3)
new_dataset
ok tether add lake ducklake:sqlite:../lake.db --kind ducklake
grep -qx "uri = \"ducklake:sqlite:$TMP/lake.db\"" .tether/objects/lake.toml || fail "uri not absolute: $(cat .tether/objects/lake.toml)"
ok tether status --snapshot
out_matches '^ +new  lake  \[ducklake/addressable\]$'
ok tether commit -m first
out_has "  recorded lake (addressable: reopened by its state, no native ref)"
grep -qx "snapshot_id = $s2" .tether/objects/lake.toml || fail "state: $(cat .tether/objects/lake.toml)"
grep -q '^\[pin\]' .tether/objects/lake.toml && fail "a DuckLake object got a pin"
grep -qx 'recoverable = true' .tether/objects/lake.toml || fail "not recoverable"

s3=$(lake insert "$TMP/lake.db" t 5000)
lake create-table "$TMP/lake.db" u >/dev/null
ok tether status --snapshot
out_matches '^ +modified  lake  \[ducklake/addressable\]$'
ok tether commit -m second
ok tether diff HEAD~1 HEAD --content
out_matches '^    changed  lake  \[\+1 -0 ~1 tables\]$'
out_matches '^ +modified  main\.t  \+5000 rows$'
out_matches '^ +added  main\.u  created$'
ok tether log lake -n 3
out_matches "^  4  [0-9-]{10} [0-9:]{5}  created: main\.u$"
out_matches "^  $s3  [0-9-]{10} [0-9:]{5}  rows inserted: main\.t$"
ok tether open lake -r HEAD~1
eq "$OUT" "ATTACH 'ducklake:sqlite:$TMP/lake.db' AS tether_$(python3 -c "import hashlib,sys; print(hashlib.blake2b(sys.argv[1].encode(), digest_size=4).hexdigest())" "ducklake:sqlite:$TMP/lake.db") (SNAPSHOT_VERSION $s2, READ_ONLY)"
ok tether open lake --json
eq "$(json 'j["type"]')" DuckLakeHandle
eq "$(json 'j["handle"]["snapshot_id"]')" 4

lake expire "$TMP/lake.db" "$s2"
fails 1 tether verify -r HEAD~1
out_matches "^   missing  lake  snapshot $s2 is not in the catalog .*retention removed it"
ok tether verify
out_matches '^ +ok  lake$'
