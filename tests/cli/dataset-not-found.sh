#!/usr/bin/env bash
# Commands outside a dataset print the bare discovery message (no `error:`), exit 1, and
# write nothing.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/repo/sub" && cd "$TMP/repo"
git init -q -b main && git commit -q --allow-empty -m initial
cd sub
remember_state
for cmd in status snapshot "commit -m x" diff verify "remove k" "set k --file versioned" "log k" "add k . --kind file"; do
  # shellcheck disable=SC2086
  fails 1 tether $cmd
  eq "$ERR" "no tether dataset found at or above $TMP/repo/sub" "$cmd"
  unchanged "$cmd"
done
[ -z "$(ls -A "$TMP/repo/sub")" ] || fail "files written"
