#!/usr/bin/env bash
# An Icechunk repository in an Azure Blob container (Azurite, tests/azure/with-azurite),
# written by the real Icechunk library and tracked by its az:// URI, with the endpoint,
# account and key only in .tether/secrets.toml: `tether backends` lists az as experimental;
# commit (a tag real Icechunk lists), `new -b`, a writable open, a real write on the fork,
# commit, promote (main fast-forwarded in the container), verify; an abandoned try's tag
# removed by gc; the same repository as abfss://container@account...; a repository created with --create that real Icechunk commits to; a wrong
# key as one line naming the object and the secrets rule, never the key, nothing written.
. "$(dirname "$0")/lib.sh"
need_azure
need_icechunk
container=$(az_container icechunk)
repo="az://$container/lab/arrays.icechunk"
icechunk create "$repo" 2 >/dev/null
s1=$(icechunk_snap write "$repo" main 0 "first data")
# tether has no Azure credentials or endpoint in its environment: only the secrets.
unset AZURE_STORAGE_ACCOUNT_NAME AZURE_STORAGE_ACCOUNT AZURE_STORAGE_ACCOUNT_KEY AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
az_secrets "$container"
refs() { icechunk refs "$repo" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }

ok tether backends
grep -A2 '^icechunk ' <<<"$OUT" | grep -qE '^ +object stores: s3, s3a stable; abfs, abfss, az, azure, gcs, gs experimental$' ||
  fail "icechunk's object stores"

ok tether add arrays "$repo" --kind icechunk
out_has "added arrays (icechunk)"
grep -qx "uri = \"$repo\"" .tether/objects/arrays.toml || fail "locator: $(cat .tether/objects/arrays.toml)"
ok tether commit -m baseline --json
tag1=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag1')")" "$s1" "the pin, as real Icechunk sees it"

fork="tether.ws.$ds.reread"
ok tether new -b reread
ok tether open arrays --json
eq "$(json 'j["read_only"]')" False
eq "$(json 'j["address"]')" "$repo#$fork"
eq "$(json 'j["handle"]["bucket"] + " " + j["handle"]["prefix"]')" "$container lab/arrays.icechunk"
if grep -qF "$TETHER_TEST_AZURE_KEY" <<<"$OUT$ERR"; then fail "the account key in open's output"; fi
eq "$(refs "r['branches'].get('$fork')")" "$s1" "the fork, as real Icechunk sees it"

s2=$(icechunk_snap write "$repo" "$fork" 1 "re-read plate 1")
ok tether status --snapshot
out_matches '^ +modified  arrays  \[icechunk/forkable\]$'
ok tether commit -m "re-read" --json
tag2=$(json 'j["pinned"]["arrays"]')
eq "$(refs "r['tags'].get('$tag2')")" "$s2" "the pin of the fork's head"
ok tether diff HEAD~1 HEAD --content
out_matches '^ +modified  /data  1 chunk written$'
ok tether promote
out_has "  fast-forwarded arrays -> {'snapshot_id': '$s2'}"
eq "$(refs "r['branches']['main']")" "$s2" "main after promote, as real Icechunk sees it"
ok tether verify --deep
out_matches '^ +ok  arrays$'

# a try on main, committed, abandoned and collected: its tag leaves the container
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

# the same repository through its abfss:// spelling, the account in the URL: another
# object (the account is part of its uri), its own secrets rule, the same snapshot
abfs="abfss://$container@$TETHER_TEST_AZURE_ACCOUNT.dfs.core.windows.net/lab/arrays.icechunk"
cat >>.tether/secrets.toml <<TOML
[uris."abfss://$container@$TETHER_TEST_AZURE_ACCOUNT.dfs.core.windows.net/"]
endpoint = "$TETHER_TEST_AZURE_ENDPOINT"
allow_http = true
account_key = "$TETHER_TEST_AZURE_KEY"
TOML
fails 1 tether add odd "abfss://$container@$TETHER_TEST_AZURE_ACCOUNT.host\"x/lab/arrays.icechunk" --kind icechunk
err_has "is not a storage host name"
ok tether add same "$abfs" --kind icechunk
grep -qx "uri = \"$abfs\"" .tether/objects/same.toml || fail "locator: $(cat .tether/objects/same.toml)"
ok tether open same --read-only --json
eq "$(json 'j["handle"]["snapshot_id"] + " " + j["handle"]["account"] + " " + j["handle"]["bucket"]')" "$(refs "r['branches']['main']") $TETHER_TEST_AZURE_ACCOUNT $container"
ok tether commit -m "the abfss spelling"
# without its rule: the way out names the rule as it must be written, account and all
cp .tether/secrets.toml "$TMP/secrets.toml"
python3 - .tether/secrets.toml <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
open(p, "w").write(s[: s.index('[uris."abfss://')])
PY
fails 1 tether status --snapshot
err_has "[uris.\"abfss://$container@$TETHER_TEST_AZURE_ACCOUNT.dfs.core.windows.net/\"]"
cp "$TMP/secrets.toml" .tether/secrets.toml
ok tether remove same
ok tether commit -m "one spelling is enough"

# a repository created in the container by tether, committed to by real Icechunk
fresh="az://$container/lab/fresh.icechunk"
ok tether add fresh "$fresh" --kind icechunk --create
out_has "added fresh (icechunk, created)"
f1=$(icechunk_snap write "$fresh" main 0 "real write into a created repository")
ok tether commit -m "fresh data" --json
eq "$(icechunk refs "$fresh" | python3 -c 'import json,sys; print(list(json.load(sys.stdin)["tags"].values())[0])')" "$f1" "fresh's pin"

# a wrong key: one line naming the object and the secrets rule; nothing written
wrong=V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5V1JPTkdrZXlXUk9OR2tleVdST05Ha2V5MDA=
sed -i "s|^account_key = .*|account_key = \"$wrong\"|" .tether/secrets.toml
remember_state
fails 1 tether commit -m "no keys"
err_lines 1
err_matches "^error: .*az://$container/lab/arrays.icechunk.*access denied.*\[uris\.\"az://$container/\"\] \(account_name, account_key or sas_token\)"
if grep -qF -e "$wrong" -e "$TETHER_TEST_AZURE_KEY" <<<"$OUT$ERR"; then fail "a key in the error"; fi
unchanged "a commit without access"
