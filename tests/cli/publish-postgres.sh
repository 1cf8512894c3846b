#!/usr/bin/env bash
# tether publish into a throwaway PostgreSQL (docs/registry.md#publish): a dry run
# writes nothing (not even the schema); the first publish writes every table with real types
# (JSONB, TIMESTAMPTZ, BOOLEAN); a second writes no commit row and rewrites the refs; a new
# commit publishes only its own rows and moves the head ref. Refusals: no DSN, a bad schema
# name, a closed port (the DSN's password never printed). A statement failing part-way rolls
# everything back.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-pg.sh"
# table_line NAME N: the report line of one table.
table_line() { printf '  %-15s  %7s row(s)' "$1" "$2"; }
DSN=$TETHER_TEST_PG_CONNINFO
unset TETHER_PUBLISH_DSN

use_memory_store
new_dataset
ok tether add db sys1 --kind memory
mkdir -p "$TMP/plate" && printf 'abcd' >"$TMP/plate/a.bin"
ok tether add raw/plate "$TMP/plate" --kind file --file versioned
ok tether commit -m baseline
mem_edit sys1 advance >/dev/null
ok tether commit -m "db moved"
printf 'ef' >"$TMP/plate/b.bin"
ok tether commit -m "plate moved"
commits=$(git rev-list --all | wc -l)

# Refusals before anything is read or written.
fails 1 tether publish
err_has 'error: a Postgres DSN is required: --to or $TETHER_PUBLISH_DSN'
fails 1 tether publish --to "$DSN" --schema bad-name
err_has "invalid SQL identifier: 'bad-name'"
for dsn in "host=127.0.0.1 port=1 user=u dbname=d password=hunter2" "postgresql://u:hunter2@127.0.0.1:1/d"; do
  fails 1 tether publish --to "$dsn"
  err_has "error: cannot connect to PostgreSQL (host 127.0.0.1 port 1): "
  ! grep -q hunter2 <<<"$OUT$ERR" || fail "the password was printed"
done
TETHER_PUBLISH_DSN="host=127.0.0.1 port=1 password=hunter2" run tether publish --json
[ "$RC" -eq 1 ] && ! grep -q hunter2 <<<"$OUT$ERR" || fail "env DSN: exit $RC or the password printed"

# A dry run: the plan, and not even the schema is created.
remember_state
ok tether publish --to "$DSN" --dry-run
err_has "note: export/publish/import are experimental (tether.experimental.registry): the schema may change before 0.2"
out_matches '^plan: publish \([0-9]+ write\(s\)\)$'
out_matches '^              upsert  tether\.objects  6 row\(s\)$'
out_matches "^              upsert  tether\.commits  $commits row\(s\)$"
out_lacks "tether.listings"
out_lacks "already published"
eq "$(pg "SELECT count(*) FROM pg_namespace WHERE nspname = 'tether'")" 0 "schemas after a dry run"
unchanged "publish --dry-run"

# The first publish, from $TETHER_PUBLISH_DSN.
export TETHER_PUBLISH_DSN=$DSN
ok tether publish
unchanged "publish"
head=$(git rev-parse HEAD)
out_matches "^published [0-9]+ row\(s\) to schema 'tether' \(0 commit\(s\) already present\)$"
eq "$(sed -n 2p <<<"$OUT")" "$(table_line tether_meta 5)" "the first table line"
out_has "$(table_line commits "$commits")"
out_has "$(table_line objects 6)"
out_has "$(table_line object_states 4)"
out_has "$(table_line listings 0)"
out_has "$(table_line workspace 0)"
eq "$(grep -c ' row(s)$' <<<"$OUT")" 9 "table lines"
total=$(sed -nE 's/^published ([0-9]+) row.*/\1/p' <<<"$OUT")
eq "$total" "$(sed -nE 's/^  [a-z_]+ +([0-9]+) row\(s\)$/\1/p' <<<"$OUT" | awk '{n += $1} END {print n}')" "the total"
eq "$(count tether.commits)" "$commits" "commit rows"
eq "$(count tether.commit_parents)" "$(git rev-list --all --parents | awk '{n += NF - 1} END {print n}')" "parent edges"
eq "$(count tether.objects)" 6 "object rows"
eq "$(count tether.object_states)" 4 "object states"
eq "$(pg "SELECT string_agg(key, ',' ORDER BY key) FROM tether.objects_head")" "db,raw/plate" "objects_head"
[[ $(pg "SELECT state_json->>'snapshot_id' FROM tether.objects_head WHERE key = 'db'") == sys1:* ]] || fail "JSONB ->>"
eq "$(pg "SELECT locator_json->>'uri' FROM tether.objects_head WHERE key = 'db'")" "sys1" "locator_json->>'uri'"
eq "$(pg "SELECT recoverable FROM tether.objects_head WHERE key = 'db'")" t "recoverable"
eq "$(pg "SELECT data_type FROM information_schema.columns WHERE table_schema = 'tether' AND table_name = 'commits' AND column_name = 'committed_at'")" \
  "timestamp with time zone" "committed_at's type"
eq "$(pg "SELECT data_type FROM information_schema.columns WHERE table_schema = 'tether' AND table_name = 'objects' AND column_name = 'locator_json'")" \
  jsonb "locator_json's type"
eq "$(pg "SELECT value FROM tether.tether_meta WHERE key = 'head'")" "$head" "meta head"
eq "$(pg "SELECT commit_id FROM tether.refs WHERE kind = 'head'")" "$head" "head ref"
eq "$(pg "SELECT max(commits) FROM tether.object_pins")" 2 "the most shared pin"
eq "$(pg "SELECT message FROM tether.commits WHERE commit_id = '$head'")" "plate moved" "the message"

# Again: every commit is known, nothing commit-keyed is written, the refs are rewritten.
ok tether publish
out_matches "^published [0-9]+ row\(s\) to schema 'tether' \($commits commit\(s\) already present\)$"
out_has "$(table_line commits 0)"
out_has "$(table_line commit_parents 0)"
out_has "$(table_line objects 0)"
out_matches '^  refs +[1-9][0-9]* row\(s\)$'
eq "$(count tether.commits)" "$commits" "commit rows after a second publish"
eq "$(count tether.objects)" 6 "object rows after a second publish"
eq "$(pg "SELECT count(*) FROM tether.refs WHERE kind = 'head'")" 1 "head refs"
ok tether publish --dry-run --json
eq "$(json 'j["command"]')" publish
eq "$(json 'j["context"]["schema"] + " " + j["context"]["head"]')" "tether $head"
eq "$(json 'j["notes"]')" "['$commits commit(s) already published']"
eq "$(json '[a["target"] for a in j["actions"] if a["op"] == "upsert"][:1]')" "['tether.tether_meta']"
[ -z "$ERR" ] || fail "--json printed on stderr: $ERR"

# A new commit; the first attempt fails at object_states (after commits and objects were
# written) and leaves the schema as it was.
mem_edit sys1 advance >/dev/null
ok tether commit -m "db again"
pg "ALTER TABLE tether.object_states ADD CONSTRAINT refuse_new CHECK (false) NOT VALID"
fails 1 tether publish
err_has "object_states"
err_has "rolled back"
eq "$(count tether.commits)" "$commits" "commit rows after a failed publish"
eq "$(count tether.objects)" 6 "object rows after a failed publish"
eq "$(pg "SELECT commit_id FROM tether.refs WHERE kind = 'head'")" "$head" "the head ref after a failed publish"
pg "ALTER TABLE tether.object_states DROP CONSTRAINT refuse_new"

ok tether publish --json
eq "$(json 'sorted(j)')" "['head', 'schema', 'skipped_commits', 'upserted']"
eq "$(json 'j["schema"]')" tether
eq "$(json 'j["head"]')" "$(git rev-parse HEAD)"
eq "$(json 'j["skipped_commits"]')" "$commits"
eq "$(json 'sorted(j["upserted"])')" "['commit_parents', 'commits', 'listing_entries', 'listings', 'object_states', 'objects', 'refs', 'tether_meta', 'workspace']"
eq "$(json 'j["upserted"]["commits"], j["upserted"]["objects"]')" "1 2"
[ -z "$ERR" ] || fail "--json printed on stderr: $ERR"
eq "$(pg "SELECT commit_id FROM tether.refs WHERE kind = 'head'")" "$(git rev-parse HEAD)" "the head ref moved"
eq "$(pg "SELECT count(*) FROM tether.objects WHERE commit_id = '$(git rev-parse HEAD)'")" 2 "the new commit's objects"
eq "$(count tether.commits)" "$((commits + 1))" "commit rows"

# Another schema, one revision: only that commit; refs limited to it.
ok tether publish --schema reg_two --rev HEAD~1
out_matches "^published [0-9]+ row\(s\) to schema 'reg_two' \(0 commit\(s\) already present\)$"
eq "$(count reg_two.commits)" 1 "a --rev publish"
eq "$(pg "SELECT count(*) FROM reg_two.refs WHERE commit_id <> '$head'")" 0 "refs of a --rev publish"

# A schema that disagrees with ours (a table of the wrong type) is refused and nothing stays.
pg "CREATE SCHEMA broken; CREATE TABLE broken.object_states (kind TEXT, identity_hash TEXT, state_hash TEXT,
    identity_json INTEGER, state_json JSONB, pin_id TEXT, first_commit_id TEXT, first_committed_at TIMESTAMPTZ,
    PRIMARY KEY (kind, identity_hash, state_hash))"
fails 1 tether publish --schema broken
err_matches "^error: publish to PostgreSQL schema 'broken' failed at table object_states: .*identity_json.*rolled back"
eq "$(pg "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'broken'")" object_states "broken's tables"
eq "$(count broken.object_states)" 0 "broken's rows"
