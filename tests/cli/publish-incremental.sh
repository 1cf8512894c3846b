#!/usr/bin/env bash
# An incremental publish (issue 19): the history walk skips the commits the schema holds and
# still writes what a full publish into an empty schema writes, when the schema has some
# commits and not others, when a state a new commit records was first recorded by a known
# commit (earlier or later in the history), and after the branch moved backwards. The
# schema's rows are untrusted: a commit id or a first commit that is not ours skips nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-pg.sh"
export TETHER_PUBLISH_DSN=$TETHER_TEST_PG_CONNINFO

# same_as_full SCHEMA [--superset]: SCHEMA holds what a full publish into a fresh schema
# writes now, row for row. With --superset it may hold more: rows of commits no longer walked
# (publish never deletes them), and the rows of states only such commits record keep naming
# them (publish rewrites the states the commits it writes record); the refs are the same.
fresh=0
same_as_full() {
  local f
  fresh=$((fresh + 1))
  f=full$fresh
  ok tether publish --schema "$f"
  out_has "(0 commit(s) already present)"
  for t in commits commit_parents objects refs; do
    eq "$(count "(SELECT * FROM $f.$t EXCEPT SELECT * FROM $1.$t) d")" 0 "$t rows of a full publish $1 lacks"
    [ "${2:-}" == --superset ] && [ "$t" != refs ] && continue
    eq "$(count "(SELECT * FROM $1.$t EXCEPT SELECT * FROM $f.$t) d")" 0 "$t rows of $1 a full publish lacks"
  done
  if [ "${2:-}" == --superset ]; then
    eq "$(count "(SELECT * FROM $f.object_states s WHERE NOT EXISTS (SELECT 1 FROM $1.object_states o
        WHERE (o.kind, o.identity_hash, o.state_hash) = (s.kind, s.identity_hash, s.state_hash)
        AND o.first_commit_id NOT IN (SELECT commit_id FROM $f.commits))
        EXCEPT SELECT * FROM $1.object_states) d")" 0 "object_states rows of a full publish $1 lacks"
  else
    eq "$(count "(SELECT * FROM $f.object_states EXCEPT SELECT * FROM $1.object_states) d")" 0 "object_states rows of a full publish $1 lacks"
    eq "$(count "(SELECT * FROM $1.object_states EXCEPT SELECT * FROM $f.object_states) d")" 0 "object_states rows of $1 a full publish lacks"
  fi
}
first_commit() { pg "SELECT first_commit_id FROM $1.object_states WHERE state_json->>'digest' = '$2'"; }
plate_digest() { tether status --snapshot --json | python3 -c 'import json,sys; print([o["state"]["digest"] for o in json.load(sys.stdin)["objects"] if o["key"] == "raw/plate"][0])'; }

use_memory_store
new_dataset
ok tether add db sys1 --kind memory
mkdir -p "$TMP/plate" && printf 'abcd' >"$TMP/plate/a.bin"
ok tether add raw/plate "$TMP/plate" --kind file --file versioned
ok tether commit -m baseline
c1=$(git rev-parse HEAD)
mem_edit sys1 advance >/dev/null
ok tether commit -m "db moved"
printf 'ef' >"$TMP/plate/b.bin"
ok tether commit -m "plate moved"
c3=$(git rev-parse HEAD)
p2=$(plate_digest)
ok tether publish --schema inc
out_has "(0 commit(s) already present)"

# Every commit present: nothing commit-keyed is written.
ok tether publish --schema inc --json
eq "$(json 'j["skipped_commits"]')" "$(git rev-list --all | wc -l)"
eq "$(json 'j["upserted"]["commits"], j["upserted"]["objects"], j["upserted"]["object_states"]')" "0 0 0"

# Two new commits; the second records the plate state c3 recorded first (c3 is earlier: the
# stored first commit stays).
known=$(git rev-list --all | wc -l)
printf 'g' >"$TMP/plate/c.bin"
ok tether commit -m "plate grew"
rm "$TMP/plate/c.bin"
ok tether commit -m "plate shrank"
ok tether publish --schema inc --json
eq "$(json 'j["skipped_commits"], j["upserted"]["commits"]')" "$known 2"
eq "$(first_commit inc "$p2")" "$c3" "the first commit of a state a known commit recorded earlier"
same_as_full inc

# The branch moves back to the first commit (a branch keeps the rest reachable) and a new
# commit there records the same plate state again, now earlier in the history than c3.
git branch keep
known=$(git rev-list --all | wc -l)
git reset -q --hard "$c1"
ok tether commit -m "plate again, early"
c6=$(git rev-parse HEAD)
ok tether publish --schema inc --json
eq "$(json 'j["skipped_commits"], j["upserted"]["commits"]')" "$known 1"
eq "$(first_commit inc "$p2")" "$c6" "a new commit earlier than the stored first commit"
same_as_full inc

# Without the branch the old commits are no longer walked; publish still matches.
git branch -D -q keep
mem_edit sys1 advance >/dev/null
ok tether commit -m "db again"
ok tether publish --schema inc
same_as_full inc --superset

# Hostile rows: commit ids that are not ours, and a stored first commit that is not ours
# for a state the next commit records again. Our new commits are written whole; the state's
# first commit is found among our commits the schema holds, as a full publish finds it.
before=$(count inc.commits)
pg "INSERT INTO inc.commits (commit_id, manifest_hash) VALUES ('$(printf 'f%.0s' {1..40})', 'x'), ('$(git rev-parse HEAD | tr 0-9a-f a-f0-9)', 'y')"
printf 'h' >"$TMP/plate/d.bin"
ok tether commit -m "plate grew again"
ok tether publish --schema inc
eq "$(first_commit inc "$p2")" "$c6"
pg "UPDATE inc.object_states SET first_commit_id = '$(printf 'e%.0s' {1..40})' WHERE first_commit_id = '$c6'"
rm "$TMP/plate/d.bin"
ok tether commit -m "plate shrank again"
ok tether publish --schema inc --json
head=$(git rev-parse HEAD)
eq "$(json 'j["upserted"]["commits"]')" 1 "the new commit"
for c in "$head" "$(git rev-parse HEAD~1)"; do
  eq "$(count "inc.objects WHERE commit_id = '$c'")" 2 "object rows of $c"
  eq "$(count "inc.commit_parents WHERE commit_id = '$c'")" 1 "parent rows of $c"
done
eq "$(count inc.commits)" "$((before + 4))" "our new commits and the two strangers"
eq "$(first_commit inc "$p2")" "$c6" "a state whose stored first commit is not ours"
same_as_full inc --superset
