#!/usr/bin/env bash
# Two databases of one Neon project: a branch at an LSN snapshots the whole project, so they
# share one pin per commit and one working branch per bookmark. Fingerprinting both at once on
# a fresh branch (no compute yet) makes exactly one read-write endpoint: Neon allows one per
# branch, so the plugin's endpoint creation is single-flight.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/neon-lib.sh"
start_standin
new_project two neondb alice analytics
new_neon_dataset
ok tether add app --kind neon --project-id "$PROJECT" --database neondb --role alice
ok tether add stats --kind neon --project-id "$PROJECT" --database analytics --role alice
psql "$MAIN_URI" -qc "create table t(x int); insert into t values (1)"
ok tether commit -m first --json
eq "$(json 'j["pinned"]["app"] == j["pinned"]["stats"]')" True "one pin for both"
eq "$(branch_names | grep -c '^tether\.[0-9a-f]\{8\}\.')" 1 "pin branches"

ok tether new -b x --eager
eq "$(branch_names | grep -c '^tether\.ws\.')" 1 "working branches"
ws=$(branch_names | grep '^tether\.ws\.')
control DELETE requests >/dev/null
ok tether status --snapshot
out_matches '^ +clean +app'
out_matches '^ +clean +stats'
created=$(control GET "requests?method=POST&prefix=/projects/$PROJECT/endpoints" |
  python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin)["requests"] if r["status"] < 300))')
eq "$created" 1 "read-write endpoints created for $ws"
ok tether open app --with-password
psql "$OUT" -qc "insert into t values (2)"
ok tether status --snapshot
out_matches '^ +modified +app'
out_matches '^ +modified +stats'  # one project-wide snapshot: the other database moved with it
