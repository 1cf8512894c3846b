#!/usr/bin/env bash
# Where `tether export PATH` may write. It replaces its target, so `tether export tether.toml`
# turned the dataset's own file into a SQLite database. Now: never over tether.toml or into
# .tether/ (symlinks and `..` resolved first, --force or not); over another existing file or
# non-empty directory only when it is a tether export (a SQLite file with tether_meta, a
# directory with tether's schema.json), else only with --force. The attacker commits
# symlinks named like export targets that point at the dataset's own files; the victim's
# exports through them are refused and every file stays as it was.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

attacker_memory_dataset
ln -s tether.toml report.sqlite
ln -s .tether dump
ln -s .tether/objects/db.toml db.sqlite
git add -A && git commit -q -m "export targets"
victim_clone
ok tether new -b work  # journals in .tether/ops.jsonl, one of the files to protect
[ -f .tether/ops.jsonl ] || fail "no op log to protect"
OUTSIDE=$(fingerprint "$TMP/attacker")

refused() {  # refused PATTERN ARGS...: exit 1, one line matching PATTERN, no file changed
  local pattern=$1
  shift
  remember_state
  fails 1 tether export "$@"
  err_lines 2  # the experimental note, then the error
  grep -qE -- "$pattern" <<<"$(grep '^error' <<<"$ERR")" || fail "stderr does not match $pattern"
  unchanged "export $*"
}
for force in "" --force; do
  refused "^error: refusing to export to tether.toml: it is the dataset's tether.toml; export somewhere else$" tether.toml $force
  refused "^error: refusing to export to report.sqlite: it is the dataset's tether.toml" report.sqlite $force
  refused "^error: refusing to export to report.sqlite: it is the dataset's tether.toml" report.sqlite --append $force
  refused "^error: refusing to export to .tether/ops.jsonl: it is inside the dataset's .tether/" .tether/ops.jsonl $force
  refused "inside the dataset's .tether/" db.sqlite --append $force
  refused "inside the dataset's .tether/" dump --format csv $force
  refused "inside the dataset's .tether/" sub/../.tether/new.sqlite $force
  refused "it is the dataset's tether.toml" "$PWD/.tether/../tether.toml" $force
done

# an unrelated file or directory: refused, untouched; --force replaces the file
printf 'my notes\n' >"$TMP/notes.txt"
mkdir -p "$TMP/photos" && printf jpg >"$TMP/photos/a.jpg"
refused "^error: $TMP/notes.txt exists and is not a tether SQLite export; pass --force to replace it, or export somewhere else$" \
  "$TMP/notes.txt"
refused "is not a tether SQLite export" "$TMP/notes.txt" --append
eq "$(cat "$TMP/notes.txt")" "my notes"
refused "^error: $TMP/photos is a directory that holds no tether export \(no tether schema.json\); pass --force" \
  "$TMP/photos" --format jsonl
eq "$(ls "$TMP/photos")" "a.jpg"
ok tether export "$TMP/notes.txt" --force
[ "$(head -c 15 "$TMP/notes.txt")" == "SQLite format 3" ] || fail "--force did not replace the file"

# tether's own exports are replaced (or appended to) again without --force
ok tether export "$TMP/t.sqlite"
ok tether export "$TMP/t.sqlite"
ok tether export "$TMP/t.sqlite" --append
ok tether export "$TMP/notes.txt"
ok tether export "$TMP/d" --format csv
ok tether export "$TMP/d" --format csv
[ -f "$TMP/d/schema.json" ] && [ -f "$TMP/d/objects.csv" ] || fail "directory export missing"

eq "$(git status --porcelain)" "" "the victim's checkout"
[ "$(fingerprint "$TMP/attacker")" == "$OUTSIDE" ] || fail "the attacker's repository changed"
