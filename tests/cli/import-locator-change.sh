#!/usr/bin/env bash
# An import that changes an object's locator lets go of this checkout's working branch: the
# workspace forgets the key's working ref, pending fork, base state and fork point, the old
# branch stays in the old system (for gc), and a writable open asks for `tether new`. After a
# commit and a new fork, a policy-only import update keeps the working ref.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add db sys1 --kind memory
ok tether commit -m first
ok tether new -b work --eager
branch=tether.ws.$id.work
grep -q "^db = \"$branch\"" .tether/workspace.toml || fail "no working ref: $(cat .tether/workspace.toml)"

printf '{"key": "db", "kind": "memory", "uri": "sys2"}\n' >"$TMP/moved.jsonl"
ok tether import "$TMP/moved.jsonl" --dry-run
eq "$OUT" "plan: import (1 write(s))
              update  db  [memory] sys2  locator changed; committed state kept"
ok tether import "$TMP/moved.jsonl"
eq "$(grep -c '^db = ' .tether/workspace.toml || true)" 0 "db entries left in the workspace: $(cat .tether/workspace.toml)"
eq "$(mem "s['systems']['sys1']['branches'].get('$branch') is not None")" "True" "the old branch is left for gc"
fails 1 tether open db --writable
err_has "no working ref for 'db'"

ok tether commit -m "moved to sys2"
ok tether new work --eager
grep -q "^db = \"$branch\"" .tether/workspace.toml || fail "no working ref after new: $(cat .tether/workspace.toml)"
printf '{"key": "db", "kind": "memory", "uri": "sys2", "policy_file": "versioned"}\n' >"$TMP/policy.jsonl"
ok tether import "$TMP/policy.jsonl"
eq "$OUT" "added 0, updated 1, removed 0, unchanged 0
  updated db
run \`tether commit\` to record their states"
grep -q "^db = \"$branch\"" .tether/workspace.toml || fail "a policy-only update dropped the working ref: $(cat .tether/workspace.toml)"
