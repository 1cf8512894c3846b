#!/usr/bin/env bash
# Re-forking an existing Neon working branch: with no pins hanging off it, the branch is reset
# in place with Neon's branch restore (`new --discard` drops its unpinned writes); once a
# commit's pin hangs off it, Neon could not restore it, so the fork goes to the sibling
# `<name>.2` and the engine records that name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/neon-lib.sh"
start_standin
new_project forks neondb alice
new_neon_dataset
ok tether add db --kind neon --project-id "$PROJECT" --database neondb --role alice
psql "$MAIN_URI" -qc "create table t(x int); insert into t values (1)"
ok tether commit -m first
ok tether new -b x --eager
ws=$(branch_names | grep '^tether\.ws\.')
ok tether open db --with-password
psql "$OUT" -qc "insert into t values (2), (3)"

# unpinned writes: refused, then dropped with --discard by a restore onto the pin
fails 1 tether new x
control DELETE requests >/dev/null
ok tether new x --discard
ok tether open db --with-password  # the lazy fork: a restore of the existing branch
restores=$(control GET "requests?method=POST" | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin)["requests"] if r["path"].endswith("/restore") and r["status"] < 300))')
eq "$restores" 1 "restores"
uri=$OUT
eq "$(count_rows "$uri")" 1 "rows after the restore"
eq "$(branch_names | grep -c '^tether\.ws\.')" 1 "working branches after the restore"

# a pin on the working branch: the next re-fork goes to a sibling
psql "$uri" -qc "insert into t values (4)"
ok tether commit -m "on x"
psql "$uri" -qc "insert into t values (5)"
ok tether new x --discard
ok tether open db --with-password
grep -qx "$ws.2" <<<"$(branch_names)" || fail "no sibling $ws.2: $(branch_names)"
eq "$(count_rows "$OUT")" 2 "rows on the sibling (the pin of 'on x')"
ok tether status --snapshot
out_matches '^ +clean +db'
