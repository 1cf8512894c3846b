#!/usr/bin/env bash
# A link that appears during a command is not followed either. The attacker's main is clean;
# the branch `evil` force-adds `.tether/lock` and `.tether/cache` as links to a file and a
# directory outside the dataset. git treats the victim's ignored lock and cache as
# expendable, so `tether new evil` (which switches to that branch while holding the lock,
# with a file object whose hash cache lives in .tether/cache) ends up with the links in
# place: nothing outside changes during that command, and the next command refuses.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

mkdir -p "$TMP/outside/dir" "$TMP/data"
echo "precious bytes" >"$TMP/outside/precious"
echo "one" >"$TMP/data/a.txt"
OUTSIDE_BEFORE=$(fingerprint "$TMP/outside")

attacker_dataset
cd "$TMP/attacker"
ok tether add m sys1 --kind memory
ok tether add f "$TMP/data" --kind file
ok tether commit -m first
git switch -q -c evil
rm -rf .tether/lock .tether/cache
ln -s "$TMP/outside/precious" .tether/lock
ln -s "$TMP/outside/dir" .tether/cache
git add -f .tether/lock .tether/cache
git commit -q -m "evil"
git switch -q main

victim_clone
git branch -q evil origin/evil
ok tether status --snapshot
echo "two" >"$TMP/data/a.txt"  # so the next fingerprint writes the hash cache
run tether new evil
[ "$(fingerprint "$TMP/outside")" == "$OUTSIDE_BEFORE" ] || fail "tether new evil wrote outside the dataset"
[ -L .tether/lock ] || fail "the switch did not bring the lock link (the scenario tests nothing)"
for cmd in "status" "status --snapshot" "commit -m y" "new main"; do
  # shellcheck disable=SC2086
  fails 1 tether $cmd
  err_lines 1
  err_matches '^error: \.tether/(lock|cache) is a symlink \(to .*/outside/(precious|dir)\); '
  [ "$(fingerprint "$TMP/outside")" == "$OUTSIDE_BEFORE" ] || fail "outside changed after: tether $cmd"
done
