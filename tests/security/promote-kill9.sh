#!/usr/bin/env bash
# promote under kill -9: each round lands a bookmark over N git objects whose base branch is
# checked out in its repository (every promote rewrites that working tree), and SIGKILLs
# tether at a random moment. Right after the kill every object's branch is at its old or its
# new head, and its working tree is clean or carries the landing marker that says a move was
# under way. Then, on alternate rounds, `tether repair` finishes the interrupted promote or
# `tether undo` reverses it: afterwards every working tree is clean, the objects are all at
# their old heads or all at their new ones (the trunk with them), and a second repair has
# nothing to do. A promote after that lands the rest, and the next round starts from there.
# ROUNDS and OBJECTS bound the work (defaults 20 and 10).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-20}
OBJECTS=${OBJECTS:-10}
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
objs=$(seq 1 "$OBJECTS")
for i in $objs; do
  new_code_repo "$TMP/code$i"
  ok tether add "c$i" "$TMP/code$i" --kind git
done
ok tether commit -m baseline

# fork_work REPO BRANCH ROUND: a commit on BRANCH (not checked out anywhere) that rewrites
# a dozen files and drops one, so landing it switches many paths of the base's checkout.
fork_work() {
  local repo=$1 branch=$2 round=$3 idx="$TMP/index.$$" blob f
  GIT_INDEX_FILE=$idx git -C "$repo" read-tree "$branch"
  for f in $(seq 1 12); do
    blob=$(printf 'round %s file %s\n' "$round" "$f" | git -C "$repo" hash-object -w --stdin)
    GIT_INDEX_FILE=$idx git -C "$repo" update-index --add --cacheinfo "100644,$blob,data/f$f.txt"
  done
  GIT_INDEX_FILE=$idx git -C "$repo" update-index --force-remove "data/f$(( (round % 12) + 1 )).txt"
  local tree commit
  tree=$(GIT_INDEX_FILE=$idx git -C "$repo" write-tree)
  commit=$(git -C "$repo" commit-tree "$tree" -p "$branch" -m "round $round")
  git -C "$repo" update-ref "refs/heads/$branch" "$commit"
  rm -f "$idx"
}

heads() { for i in $objs; do git -C "$TMP/code$i" rev-parse main; done; }
marker() { [ -f "$TMP/code$1/.git/tether-landing" ]; }
clean() { [ -z "$(git -C "$TMP/code$1" status --porcelain)" ]; }

# The newest promote entry of the op log, if it never finished: its id.
open_promote() {
  python3 - .tether/ops.jsonl <<'PY'
import json, sys
entries, done = [], set()
for line in open(sys.argv[1]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    if "command" in j: entries.append(j)
    elif "done" in j: done.add(j["done"])
if entries and entries[-1]["command"] == "promote" and entries[-1]["id"] not in done:
    print(entries[-1]["id"])
PY
}

# All at the old heads or all at the new ones, clean, no marker; the trunk where it belongs.
check_whole() {
  local what=$1 now
  now=$(heads)
  for i in $objs; do
    marker "$i" && fail "$what: code$i still has a landing marker"
    clean "$i" || fail "$what: code$i is not clean: $(git -C "$TMP/code$i" status --porcelain | head -3)"
  done
  if [ "$now" == "$old" ]; then
    eq "$(git rev-parse main)" "$trunk_old" "$what: the trunk (objects at their old heads)"
    WHOLE=old
  elif [ "$now" == "$new" ]; then
    eq "$(git rev-parse main)" "$bookmark" "$what: the trunk (objects at their new heads)"
    WHOLE=new
  else
    fail "$what: the objects are neither all at their old heads nor all at their new ones"
  fi
}

# Round 0 is not killed: it calibrates the kill delays to the length of one promote.
interrupted=0 finished=0 undone=0 clean_kills=0
for round in $(seq 0 "$ROUNDS"); do
  ok tether new -b "r$round" --eager
  fork="tether.ws.$ds.r$round"
  for i in $objs; do fork_work "$TMP/code$i" "$fork" "$round"; done
  ok tether commit -m "round $round"
  bookmark=$(git rev-parse HEAD)
  trunk_old=$(git rev-parse main)
  old=$(heads)
  new=$(for i in $objs; do git -C "$TMP/code$i" rev-parse "$fork"; done)

  if [ "$round" -eq 0 ]; then
    t0=$(date +%s%N)
    ok tether promote
    span_ms=$(( ($(date +%s%N) - t0) / 1000000 + 20 ))
    check_whole "the calibration promote"
    eq "$WHOLE" new "the calibration promote"
    continue
  fi

  delay_ms=$(( RANDOM % span_ms ))
  "$TETHER" promote >"$TMP/promote.out" 2>&1 &
  pid=$!
  sleep "$(printf '0.%03d' "$delay_ms")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true

  # Right after the kill: each branch at its old or new head; clean, or marked mid-move.
  now=$(heads)
  paste <(echo "$old") <(echo "$new") <(echo "$now") | while read -r o n c; do
    [ "$c" == "$o" ] || [ "$c" == "$n" ] || fail "round $round: a branch is at $c, neither $o nor $n"
  done
  for i in $objs; do
    clean "$i" || marker "$i" || fail "round $round: code$i is dirty without a landing marker: $(git -C "$TMP/code$i" status --porcelain | head -3)"
  done
  open_id=$(open_promote)
  if [ -n "$open_id" ]; then interrupted=$((interrupted + 1)); fi
  [ "$now" == "$old" ] && [ -z "$open_id" ] && clean_kills=$((clean_kills + 1))

  if [ -n "$open_id" ] && [ $((round % 2)) -eq 1 ]; then
    ok tether undo "$open_id"
    undone=$((undone + 1))
    check_whole "round $round after undo"
    eq "$WHOLE" old "round $round: undo of the interrupted promote"
  else
    ok tether repair
    if [ -n "$open_id" ]; then
      out_matches "^finished  promote $open_id: landed "
      finished=$((finished + 1))
    fi
    check_whole "round $round after repair"
    [ -z "$open_id" ] || eq "$WHOLE" new "round $round: repair of the interrupted promote"
  fi
  ok tether repair
  out_has "nothing to repair"
  out_lacks "never finished"

  # whatever is left lands now, whole
  ok tether promote
  check_whole "round $round after the next promote"
  eq "$WHOLE" new "round $round: the next promote"
  [ -z "$(open_promote)" ] || fail "round $round: the promote journal entry is still open"
done
echo "rounds=$ROUNDS interrupted=$interrupted finished_by_repair=$finished undone=$undone killed_before_the_journal=$clean_kills"
[ "$interrupted" -gt 0 ] || fail "no round interrupted a promote: the kill delays miss the moves"
