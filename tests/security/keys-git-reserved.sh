#!/usr/bin/env bash
# Object keys git will not store. A key's segments become directories under .tether/objects
# (the last one `<seg>.toml`); a `.git` segment in any case, or one git reserves on NTFS or
# HFS+, names a manifest git never commits: commit said "clean", a clone lacked the object,
# and `.GIT/y` made every later commit fail. The attacker commits an import source listing
# such keys; the victim's `tether import` and `tether add` refuse them with one line and
# change nothing. Each refused segment is checked against the real git: git refuses it as a
# directory (core.protectHFS on, as on macOS). Names next to them are accepted and round-trip
# through a real commit and clone.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

reserved=('.git' '.GIT' '.Git' '.git.' '.git ' '.git. .' '.git::$INDEX_ALLOCATION' 'git~1' 'GIT~1'
  $'.g\xe2\x80\x8cit' $'.GIT\xef\xbb\xbf')
near=('.gitx' '.gitignore' '.git-x' 'git' 'git~2' '.git.x' 'a.git' $'.g\xe2\x80\x8bit')

# git itself refuses each reserved segment as a directory of a path, and takes each near name
git init -q -b main "$TMP/probe"
blob=$(git -C "$TMP/probe" hash-object -w --stdin <<<'key = "x"')
for seg in "${reserved[@]}"; do
  ! git -C "$TMP/probe" -c core.protectHFS=true update-index --add --cacheinfo "100644,$blob,.tether/objects/$seg/x.toml" \
    2>/dev/null || fail "git stores the segment '$seg'; tether need not refuse it"
done
for seg in "${near[@]}"; do
  git -C "$TMP/probe" -c core.protectHFS=true update-index --add --cacheinfo "100644,$blob,.tether/objects/$seg/x.toml" ||
    fail "git refuses the segment '$seg'"
done

# The attacker commits an import source whose keys git cannot store, beside a harmless one.
attacker_dataset
cd "$TMP/attacker"
for key in '.git/x' 'a/.git/b' '.GIT/y' '.git./x'; do
  printf 'key,kind,uri\nok,memory,sys1\n%s,memory,sys2\n' "$key" >"objects-$(echo "$key" | tr -c 'a-z' _).csv"
done
git add -A && git commit -q -m "objects to import"
victim_clone
ok tether status  # the checkout's own state (workspace.toml) exists before the refusals
OUTSIDE=$(fingerprint "$TMP/attacker")
remember_state
for src in objects-*.csv; do
  fails 1 tether import "$src"
  err_matches "^error: unsafe object key: '[^']+' \(git reserves the path segment '\.(git|GIT|git\.)' and would not store the manifest; choose another key\)$"
  [ "$(grep -c '^error' <<<"$ERR")" -eq 1 ] || fail "not one error line"
  unchanged "import $src"
done
for key in '.git/x' 'a/.git/b' '.GIT/y' '.git./x' 'x/.git' $'a/.g\xe2\x80\x8cit/b' 'git~1/x' '.git::$INDEX_ALLOCATION/x'; do
  fails 1 tether add "$key" sys3 --kind memory
  err_lines 1
  err_has "error: unsafe object key: "
  err_has "(git reserves the path segment "
  unchanged "add $key"
done
[ -z "$(find .tether/objects -mindepth 1 -print -quit 2>/dev/null)" ] || fail "a manifest was written: $(find .tether/objects)"
[ ! -e "$TETHER_MEMORY_STORE" ] || fail "a store was contacted"
[ "$(fingerprint "$TMP/attacker")" == "$OUTSIDE" ] || fail "the attacker's repository changed"

# A manifest already on disk under such a name (written by hand or by an older tether) is
# refused by name, with the way out, rather than silently left out of every commit.
mkdir -p .tether/objects/.GIT
printf 'key = ".GIT/y"\nkind = "memory"\n[locator]\nuri = "sys4"\n' >.tether/objects/.GIT/y.toml
fails 1 tether status
err_lines 1
err_has "error: .tether/objects/.GIT/y.toml: unsafe object key: '.GIT/y' (git reserves the path segment '.GIT'"
rm -r .tether/objects/.GIT

# The names next to them are keys like any other: added, committed, cloned, all there.
for seg in "${near[@]}"; do ok tether add "d/$seg/k" "sys-$(echo "$seg" | od -An -tx1 | tr -d ' \n')" --kind memory; done
ok tether commit -m "near names"
ok tether status
git clone -q "$TMP/victim" "$TMP/second"
cd "$TMP/second"
ok tether status --json
for seg in "${near[@]}"; do
  [ -f ".tether/objects/d/$seg/k.toml" ] || fail "the clone lacks d/$seg/k"
done
eq "$(git -C "$TMP/victim" status --porcelain)" "" "the victim's checkout is clean"
