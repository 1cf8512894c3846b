#!/usr/bin/env bash
# A commit while another session holds a write transaction open on the branch is refused
# (NEEDS_QUIESCENCE: pg_stat_activity on the branch's compute) and changes nothing; once that
# transaction ends the commit goes through, and --force skips the check. A rolled-back write
# leaves the state as it was; a committed DDL moves it (commit_xid counts commits only).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/neon-lib.sh"
start_standin
new_project quiet neondb alice
new_neon_dataset
ok tether add db --kind neon --project-id "$PROJECT" --database neondb --role alice
psql "$MAIN_URI" -qc "create table t(x int)"

# another session: a write transaction left open
mkfifo "$TMP/sql"
psql "$MAIN_URI" -q <"$TMP/sql" >/dev/null 2>&1 &
writer=$!
exec 3>"$TMP/sql"
echo "begin; insert into t values (42);" >&3
for _ in $(seq 100); do
  n=$(psql "$MAIN_URI" -Atc "select count(*) from pg_stat_activity where backend_xid is not null and pid <> pg_backend_pid()")
  [ "$n" = 1 ] && break
  sleep 0.1
done
eq "$n" 1 "open write transactions"

remember_state
fails 1 tether commit -m busy
err_has "active writers detected; commit with --force to override"
unchanged
ok tether commit -m forced --force

echo "commit;" >&3
exec 3>&-
wait "$writer"
psql "$MAIN_URI" -qc "insert into t values (43)"
ok tether commit -m after
eq "$(git log --format=%s -3 | tr '\n' ' ')" "after forced initial " "dataset history"

# only committed transactions move the state: a rolled-back write leaves it clean
psql "$MAIN_URI" -qc "begin; insert into t values (44); rollback;"
ok tether status --snapshot
out_matches '^ +clean +db'
psql "$MAIN_URI" -qc "create table u(x int)"
ok tether status --snapshot
out_matches '^ +modified +db'
