#!/usr/bin/env bash
# A Neon database through its whole loop against the API stand-in: add, commit (the pin branch
# exists and holds the rows of commit time while main moves on), status sees a write, `new -b`
# + a writable open gives a working postgresql:// URL on a fresh branch that psql writes to
# without touching main, commit there, verify, and abandon + `gc --no-dry-run` releases that
# pin branch; a pin branch deleted behind tether's back is `missing` to verify. Handles redact
# the password unless --with-password; --json never carries it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/neon-lib.sh"
start_standin
new_project demo neondb alice
password=${MAIN_URI#postgresql://alice:}
password=${password%%@*}
new_neon_dataset

ok tether add db --kind neon --project-id "$PROJECT" --database neondb --role alice
err_has "the neon backend is experimental"
psql "$MAIN_URI" -qc "create table t(x int); insert into t values (1), (2)"
ok tether commit -m first --json
pin1=$(json 'j["pinned"]["db"]')
grep -qx "$pin1" <<<"$(branch_names)" || fail "no pin branch $pin1: $(branch_names)"
grep -q '^commit_xid = "[0-9]*"$' .tether/objects/db.toml || fail "no commit_xid: $(cat .tether/objects/db.toml)"

# main moves on; the pin keeps the rows of commit time
psql "$MAIN_URI" -qc "insert into t values (3)"
ok tether status --snapshot
out_matches '^ +modified +db +\[neon/forkable\]$'
ok tether open db --rev HEAD --with-password
eq "$(count_rows "$OUT")" 2 "rows in the pin branch"
ok tether open db --rev HEAD
out_has "alice:****@"
out_lacks "$password"
ok tether commit -m second
ok tether status --snapshot
out_matches '^ +clean +db'

# a bookmark: its branch is forked at the first writable open and psql can write there
ok tether new -b x
ok tether open db --with-password
ws_uri=$OUT
[[ $ws_uri == postgresql://alice:"$password"@127.0.0.1:* ]] || fail "writable handle: $ws_uri"
eq "$(count_rows "$ws_uri")" 3 "rows in the new branch"
psql "$ws_uri" -qc "insert into t values (10), (11)"
eq "$(count_rows "$MAIN_URI")" 3 "rows in main after writing the branch"
grep -q '^tether\.ws\..*\.x$' <<<"$(branch_names)" || fail "no working branch: $(branch_names)"
ok tether open db --json
out_lacks "$password"
eq "$(json 'j["handle"]["address"].split("@")[0]')" "postgresql://alice:****"
fails 2 tether open db --json --with-password
ok tether commit -m "on x" --json
pinx=$(json 'j["pinned"]["db"]')
ok tether open db --rev HEAD --with-password
eq "$(count_rows "$OUT")" 5 "rows in the bookmark's pin"
ok tether verify
out_matches '^ +ok +db$'

# abandon the commit on x: gc releases exactly its pin branch
ok tether abandon HEAD
ok tether gc --no-dry-run
grep -qx "$pinx" <<<"$(branch_names)" && fail "gc left $pinx: $(branch_names)"
grep -qx "$pin1" <<<"$(branch_names)" || fail "gc took $pin1"
ok tether verify

# a pin branch deleted behind tether's back is reported missing
pin1_id=$(branch_id "$pin1")
[ -n "$pin1_id" ] || fail "no id for $pin1"
curl -sf -X DELETE -H "Authorization: Bearer $NEON_API_KEY" "$API_URL/projects/$PROJECT/branches/$pin1_id" >/dev/null
run tether verify --all-history
[ "$RC" -ne 0 ] || fail "verify passed with a deleted pin branch"
out_has "branch $pin1 missing"
