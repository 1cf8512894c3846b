#!/usr/bin/env bash
# `tether new` decides each Forkable object's working branch: lazy by default (created by the
# first writable open, journaled as a `fork` op), --eager forks at once, --dry-run only plans.
# A branch holding writes no commit pinned is never reset blind: `new` refuses without
# --discard, and a writable open refuses a branch that gained writes `new` did not review.
# Committing on the bookmark pins the fork head; promote fast-forwards the base branch and
# moves the trunk onto the bookmark's commit.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add m sys1 --kind memory
ok tether commit -m first
pin0=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
[ -n "$pin0" ] || fail "no pin cut by the first commit"
branch() { mem "s['systems']['sys1']['branches'].get('$1')"; }
X=tether.ws.$id.x Y=tether.ws.$id.y Z=tether.ws.$id.z

# ---- lazy (the default): decided, not created --------------------------------------------
ok tether new -b x
out_has "on bookmark x; working refs set up"
out_matches "^  m -> tether\.ws\.$id\.x  \(created on first writable open\)$"
eq "$(git branch --show-current)" "x" "git branch after new -b x"
eq "$(branch "$X")" "None" "a lazy new created the store branch"
grep -q '^\[pending_forks\]' .tether/workspace.toml || fail "no pending fork recorded: $(cat .tether/workspace.toml)"
! grep -q '"command":"fork"' .tether/ops.jsonl || fail "a fork was journaled before any open"

# the first writable open (the default for a Forkable object) creates it at the pinned snapshot
ok tether open m
eq "$OUT" "memory://sys1/$X" "the handle"
eq "$(branch "$X")" "sys1:s0" "the fork's head"
grep -q '"command":"fork"' .tether/ops.jsonl || fail "no fork op journaled"
fork_done=$(python3 -c '
import json, sys
ids = [e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "fork"]
done = [e for e in map(json.loads, open(sys.argv[1])) if e.get("done") in ids]
print(done[-1]["result"]["ref"] if done else "")' .tether/ops.jsonl)
eq "$fork_done" "$X" "the fork op's result"
grep -q '^\[working_refs\]' .tether/workspace.toml || fail "fork not adopted as a working ref"
! grep -q '^\[pending_forks\]' .tether/workspace.toml || fail "fork still pending after the open"
# a second open finds the working ref; no second fork
ok tether open m
eq "$(grep -c '"command":"fork"' .tether/ops.jsonl)" "1" "fork ops after a second open"

# ---- eager: created by `new` itself -------------------------------------------------------
ok tether new -b y --eager
out_has "on bookmark y; working refs set up"
out_matches "^  m -> tether\.ws\.$id\.y$"
out_lacks "created on first writable open"
eq "$(branch "$Y")" "sys1:s0" "the eager fork's head"
eq "$(git branch --show-current)" "y"

# ---- dry run: a plan, nothing else ----------------------------------------------------------
remember_state
ops_before=$(wc -l <.tether/ops.jsonl)
store_before=$(mem "s")
ok tether new --dry-run -b z
out_matches '^plan: new \(0 write\(s\)\)$'
out_matches "^ {10}defer-fork  m  \[memory\] tether\.ws\.$id\.z  from pin $pin0; created on first writable open$"
unchanged "new --dry-run"
eq "$(wc -l <.tether/ops.jsonl)" "$ops_before" "op log lines after a dry run"
eq "$(mem "s")" "$store_before" "a dry run wrote to the store"
eq "$(branch "$Z")" "None" "a dry run forked"
git rev-parse -q --verify refs/heads/z >/dev/null && fail "a dry run created bookmark z"
eq "$(git branch --show-current)" "y" "a dry run switched branches"

# ---- back on x: the branch is at the pin, so it is reused ----------------------------------
ok tether new x
out_has "on bookmark x; working refs set up"
out_matches "^  m -> tether\.ws\.$id\.x$"
eq "$(git branch --show-current)" "x"

# writes behind tether's back: `new` refuses to reset them, and changes nothing
w1=$(mem_edit sys1 write "$X")
remember_state
ops_before=$(wc -l <.tether/ops.jsonl)
fails 1 tether new x
err_has "error: refusing to reset working branches with unpinned writes:"
err_has "  m: $X has writes since this workspace last committed (snapshot_id=$w1)"
err_has "--discard"
unchanged "refused new"
eq "$(wc -l <.tether/ops.jsonl)" "$ops_before" "a refused new was journaled"
eq "$(branch "$X")" "$w1" "a refused new moved the branch"

# --discard agrees to reset; lazily, so the reset waits for the first writable open
ok tether new x --discard
out_has "on bookmark x; working refs set up"
eq "$(git branch --show-current)" "x"
if grep -qF "  m -> $X  (created on first writable open)" <<<"$OUT"; then
  eq "$(branch "$X")" "$w1" "a deferred reset moved the branch early"
  python3 - .tether/workspace.toml "$w1" <<'PY' || fail "pending_resets: $(cat .tether/workspace.toml)"
import sys, tomllib
ws = tomllib.load(open(sys.argv[1], "rb"))
assert ws["pending_forks"]["m"].startswith("tether.ws."), ws
assert ws["pending_resets"]["m"] == {"snapshot_id": sys.argv[2]}, ws
PY
  ok tether open m
  eq "$OUT" "memory://sys1/$X" "the handle after the reset"
else
  out_matches "^  m -> tether\.ws\.$id\.x$"
fi
eq "$(branch "$X")" "sys1:s0" "the discarded branch is back at the pinned snapshot"
! grep -q '^\[pending_resets' .tether/workspace.toml || fail "pending reset left behind: $(cat .tether/workspace.toml)"

# a writable open never resets a branch that gained writes after `new` reviewed it
w2=$(mem_edit sys1 write "$X")
ok tether new x --discard
if grep -qF "(created on first writable open)" <<<"$OUT"; then
  w3=$(mem_edit sys1 write "$X")
  remember_state
  fails 1 tether open m
  err_has "branch $X holds writes (snapshot_id=$w3) that \`new\` did not see"
  err_has "a writable open never resets a branch"
  eq "$(branch "$X")" "$w3" "a refused open moved the branch"
  unchanged "refused open"
  # deciding again (and discarding again) lets the open reset it
  ok tether new x --discard
  ok tether open m
else
  eq "$(branch "$X")" "sys1:s0" "an eager discard did not reset $w2"
fi
eq "$(branch "$X")" "sys1:s0" "reset after the second decision"

# ---- commit on the bookmark pins the fork head; promote lands it -------------------------
w4=$(mem_edit sys1 write "$X")
eq "$(branch main)" "sys1:s0" "the base branch moved on its own"
ok tether commit -m work
out_matches "^  pinned m -> tether\.$id\.[0-9a-f]{16}$"
pin1=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
[ "$pin1" != "$pin0" ] || fail "the fork head was pinned under the old pin"
eq "$(mem "s['systems']['sys1']['tags'].get('$pin1')")" "$w4" "the new pin's snapshot"
grep -qx "snapshot_id = \"$w4\"" .tether/objects/m.toml || fail "manifest state: $(cat .tether/objects/m.toml)"
eq "$(git branch --show-current)" "x" "the commit left the bookmark"
bm=$(git rev-parse x)
[ "$(git rev-parse main)" != "$bm" ] || fail "main already at the bookmark's commit"

ok tether promote
out_has "  fast-forwarded m -> {'snapshot_id': '$w4'}"
out_matches "^main -> [0-9a-f]{12}$"
eq "$(sed -nE 's/^main -> //p' <<<"$OUT")" "${bm:0:12}" "the trunk's new commit"
eq "$(branch main)" "$w4" "sys1's main after promote"
eq "$(git rev-parse main)" "$bm" "git main after promote"
eq "$(git branch --show-current)" "x" "promote switched branches"
grep -q '"command":"promote"' .tether/ops.jsonl || fail "promote not journaled"

# promoting again has nothing to do
ok tether promote
out_lacks "fast-forwarded"
out_has "  skipped        m"
out_lacks "main ->"
eq "$(branch main)" "$w4"
