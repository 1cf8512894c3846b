#!/usr/bin/env bash
# A clone must not make tether read or write outside the dataset through a committed
# symlink in tether.toml or .tether/. For each link the attacker can commit (force-added
# where .gitignore would hide it) the victim's commands get a one-line refusal naming the
# link, a file outside the dataset is neither written (fingerprint before/after) nor read
# (its secret content never appears in any output).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

OUT_DIR="$TMP/outside"
mkdir -p "$OUT_DIR/dir"
echo "root:SECRET-HASH-CONTENT:19000:0:99999:7:::" >"$OUT_DIR/shadow"
echo "precious bytes" >"$OUT_DIR/precious"
printf '[tether]\nversion = 5\n[dataset]\nid = "SECRET-HASH-CONTENT"\n' >"$OUT_DIR/tether.toml"
OUTSIDE_BEFORE=$(fingerprint "$OUT_DIR")

# fresh_attacker: a new attacker repository with one memory object committed, in $TMP/attacker.
fresh_attacker() {
  cd "$TMP"
  rm -rf "$TMP/attacker" "$TMP/victim"
  attacker_dataset
  cd "$TMP/attacker"
  ok tether add m sys1 --kind memory
  ok tether commit -m first
}

# attack MESSAGE LINK: commits what the caller prepared (LINK force-added), clones it, and
# checks that the victim's commands are refused with one line matching MESSAGE, reading and
# writing nothing outside.
attack() {
  git add -A .
  git add -f "$2"
  git commit -q -m "attack"
  [ -L "$2" ] || fail "$2 is not a link in the attacker's repository"
  victim_clone
  [ -L "$2" ] || fail "$2 is not a link in the victim's clone"
  for cmd in "status" "status --snapshot" "commit -m y" "add evil/x sys2 --kind memory" "new -b x" "ops"; do
    # shellcheck disable=SC2086
    run tether $cmd
    [ "$RC" -eq 1 ] || fail "expected a refusal (exit 1, got $RC): tether $cmd"
    err_lines 1
    err_matches "$1"
    ! grep -q SECRET-HASH-CONTENT <<<"$OUT$ERR" || fail "outside content was read by: tether $cmd"
    [ "$(fingerprint "$OUT_DIR")" == "$OUTSIDE_BEFORE" ] || fail "outside changed after: tether $cmd"
  done
}

# The lock, force-added as a link to a file elsewhere: never truncated.
fresh_attacker
rm -f .tether/lock
ln -s "$OUT_DIR/precious" .tether/lock
attack '^error: \.tether/lock is a symlink \(to .*/outside/precious\); .*remove the symlink from the repository$' .tether/lock

# A subdirectory of objects/ linked elsewhere: `add evil/x` writes nothing there.
fresh_attacker
ln -s "$OUT_DIR/dir" .tether/objects/evil
attack '^error: \.tether/objects/evil is a symlink \(to .*/outside/dir\); ' .tether/objects/evil
[ -z "$(ls -A "$OUT_DIR/dir")" ] || fail "a manifest was written outside: $(ls -A "$OUT_DIR/dir")"

# A manifest linked to a secret file: never read.
fresh_attacker
ln -s "$OUT_DIR/shadow" .tether/objects/a.toml
attack '^error: \.tether/objects/a\.toml is a symlink \(to .*/outside/shadow\); ' .tether/objects/a.toml

# objects/, listings/ and cache/ as links.
for name in objects listings cache; do
  fresh_attacker
  rm -rf ".tether/$name"
  ln -s "$OUT_DIR/dir" ".tether/$name"
  attack "^error: \\.tether/$name is a symlink \\(to .*/outside/dir\\); " ".tether/$name"
  [ -z "$(ls -A "$OUT_DIR/dir")" ] || fail "something was written outside through .tether/$name"
done

# tether.toml itself as a link to a file elsewhere.
fresh_attacker
rm tether.toml
ln -s "$OUT_DIR/tether.toml" tether.toml
attack '^error: tether\.toml is a symlink \(to .*/outside/tether\.toml\); ' tether.toml

# .tether as a link to a directory outside the dataset that looks like one.
fresh_attacker
mkdir -p "$OUT_DIR/dot-tether"
cp -r .tether/objects .tether/.gitignore "$OUT_DIR/dot-tether/"
rm -rf .tether
ln -s "$OUT_DIR/dot-tether" .tether
OUTSIDE_BEFORE=$(fingerprint "$OUT_DIR")
attack '^error: \.tether is a symlink \(to .*/outside/dot-tether\); ' .tether
