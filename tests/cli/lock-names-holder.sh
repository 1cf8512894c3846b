#!/usr/bin/env bash
# Writers in one checkout take turns: while a commit is running (held here inside a git
# pre-commit hook), a second writer waits for the checkout lock, then gives up with a message
# naming the lock and the command holding it (its program, command word and pid only: the
# arguments can hold passwords, and the lock file stays); the first commit then completes
# untouched.
# TETHER_LOCK_TIMEOUT shortens the wait (30 s by default).
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add m sys1 --kind memory
ok tether commit -m first
mem_edit sys1 advance >/dev/null
cat >.git/hooks/pre-commit <<HOOK
#!/bin/sh
touch "$TMP/in-hook"
while [ ! -e "$TMP/release" ]; do sleep 0.05; done
HOOK
chmod +x .git/hooks/pre-commit
"$TETHER" commit -m slow >"$TMP/slow.out" 2>"$TMP/slow.err" &
slow=$!
for _ in $(seq 200); do [ -e "$TMP/in-hook" ] && break; sleep 0.05; done
[ -e "$TMP/in-hook" ] || fail "the first commit never reached its hook"

export TETHER_LOCK_TIMEOUT=0.3
fails 1 tether commit -m second
err_matches "^error: another tether command is writing in this checkout \(.*/\.tether/lock is locked by pid $slow: tether commit\); wait for it to finish$"
fails 1 tether new -b other
err_has "is locked by pid $slow: tether commit)"
grep -q slow .tether/lock && fail "the lock file holds the command's arguments: $(cat .tether/lock)"
eq "$(stat -c %a .tether/lock)" 600
touch "$TMP/release"
wait "$slow" || fail "the first commit failed: $(cat "$TMP/slow.err")"
grep -q '^committed ' "$TMP/slow.out" || fail "the first commit: $(cat "$TMP/slow.out")"
eq "$(git log -1 --format=%s)" slow
ok tether status
