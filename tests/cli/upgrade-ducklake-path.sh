#!/usr/bin/env bash
# A version-4 dataset (0.1.0b3) kept a DuckLake catalog's relative SQLite path as written;
# `tether upgrade` makes it absolute from the dataset root (`rewrite-locator`), and the
# recorded snapshot then reads as unchanged.
. "$(dirname "$0")/lib.sh"
: "${DUCKLAKE_LAKE:?DUCKLAKE_LAKE must point at the built ducklake-lake tool}"
lake() { "$DUCKLAKE_LAKE" "$@"; }
mkdir -p "$TMP/ds" && cd "$TMP/ds"
lake create lake.db >/dev/null
lake create-table lake.db t >/dev/null
lake insert lake.db t 3 >/dev/null
git init -q -b main
git commit -q --allow-empty -m "initial"
ok tether init
ok tether add lake ducklake:sqlite:lake.db --kind ducklake
ok tether commit -m "the lake"
# As 0.1.0b3 wrote it: the path as given, the format version 4.
sed -i "s|^uri = \"ducklake:sqlite:$TMP/ds/lake.db\"$|uri = \"ducklake:sqlite:lake.db\"|" .tether/objects/lake.toml
sed -i 's/^version = 5$/version = 4/' tether.toml
grep -qx 'uri = "ducklake:sqlite:lake.db"' .tether/objects/lake.toml || fail "the manifest was not made relative"
git commit -q -am "a version-4 dataset"

ok tether upgrade --dry-run
out_matches "^ +rewrite-locator  lake +\[ducklake\] lake  uri: ducklake:sqlite:lake\.db -> ducklake:sqlite:$TMP/ds/lake\.db$"
ok tether upgrade
out_has "upgraded v4 -> v5"
grep -qx "uri = \"ducklake:sqlite:$TMP/ds/lake.db\"" .tether/objects/lake.toml || fail "uri not absolute: $(cat .tether/objects/lake.toml)"
# From a subdirectory the catalog is the same one.
mkdir -p sub && cd sub
ok tether status --snapshot
out_matches '^ +clean  lake  \[ducklake/addressable\]$'
