#!/usr/bin/env bash
# Bounded parsers, TOML: an attacker commits a manifest, then a tether.toml, nested far beyond
# the 128-level limit in each way TOML nests (a 20,000-segment table header, an array of
# tables, a dotted key, inline arrays, inline tables) and one larger than 1 MiB. toml++ used
# to overflow the stack on them (exit 139). The victim's status and commit now exit 1 with one
# line naming the file and the limit, before any plugin runs or anything is written, and
# nothing outside the dataset changes.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

deep_key() { python3 -c "import sys; print('.'.join(['a'] * int(sys.argv[1])))" "$1"; }
# The hostile bodies, one per way TOML nests.
form_header() { printf '[%s]\nx = 1\n' "$(deep_key 20000)"; }
form_array_of_tables() { printf '[[%s]]\nx = 1\n' "$(deep_key 5000)"; }
form_dotted_key() { printf '%s = 1\n' "$(deep_key 20000)"; }
form_inline_arrays() { python3 -c "print('x = ' + '[' * 200000 + ']' * 200000)"; }
form_inline_tables() { python3 -c "print('x = ' + '{a = ' * 50000 + '1' + '}' * 50000)"; }
form_oversized() { python3 -c "print('x = \"' + 'y' * (2 << 20) + '\"')"; }

outside="$TMP/outside"
mkdir -p "$outside" && echo keep >"$outside/file"
before_outside=$(fingerprint "$outside")
before_home=$(fingerprint "$HOME")

# victim_runs FILE WHAT: the victim's status and commit refuse with one line naming FILE and WHAT.
victim_runs() {
  local file=$1 what=$2 cmd
  for cmd in "status" "commit -m x" "ops"; do
    # shellcheck disable=SC2086
    run tether $cmd
    [ "$RC" -ne 139 ] && [ "$RC" -ne 134 ] || fail "tether $cmd crashed (exit $RC) on $file"
    [ "$RC" -eq 1 ] || fail "tether $cmd: expected exit 1, got $RC ($file)"
    err_lines 1
    err_has "error: $file"
    err_has "$what"
    err_has "fix or remove it"
  done
  [ ! -e "$TETHER_MEMORY_STORE" ] || fail "a plugin ran: the memory store exists"
  git diff --quiet HEAD || fail "the victim's checkout changed"
  [ -z "$(git status --porcelain --untracked-files=all -- . ':!.tether/lock' ':!.tether/workspace.toml' ':!.tether/cache')" ] ||
    fail "files appeared: $(git status --porcelain)"
}

for form in header array_of_tables dotted_key inline_arrays inline_tables oversized; do
  what="nesting deeper than 128 levels"
  [ "$form" != oversized ] || what="more than the 1048576-byte limit for a TOML file"

  # A hostile manifest beside a healthy one.
  rm -rf "$TMP/attacker" "$TMP/victim"
  cd "$TMP"
  attacker_dataset
  (
    cd "$TMP/attacker"
    "$TETHER" add good sys1 --kind memory >/dev/null
    "form_$form" >.tether/objects/evil.toml
    git add -A && git commit -q -m "a manifest ($form)"
  )
  victim_clone
  victim_runs ".tether/objects/evil.toml" "$what"

  # A hostile tether.toml.
  rm -rf "$TMP/attacker" "$TMP/victim"
  cd "$TMP"
  attacker_dataset
  (
    cd "$TMP/attacker"
    { cat tether.toml; "form_$form"; } >tether.toml.new && mv tether.toml.new tether.toml
    git add -A && git commit -q -m "tether.toml ($form)"
  )
  victim_clone
  victim_runs "tether.toml" "$what"
done

# At the limit is accepted: a manifest whose state nests 128 levels deep as written.
rm -rf "$TMP/attacker" "$TMP/victim"
cd "$TMP"
attacker_dataset
(
  cd "$TMP/attacker"
  "$TETHER" add deep sys1 --kind memory >/dev/null
  # [state.a.a...]: the document, `state`, then 126 segments = 128 levels.
  printf '\n[state.%s]\nx = 1\n' "$(deep_key 126)" >>.tether/objects/deep.toml
  git add -A && git commit -q -m "deep but within the limit"
)
victim_clone
ok tether status --no-snapshot
[ "$RC" -eq 0 ] || fail "a manifest at the limit was refused"
printf '[state.%s]\n' "$(deep_key 127)" >>.tether/objects/deep.toml
fails 1 tether status --no-snapshot
err_has "error: .tether/objects/deep.toml:"
err_has "nesting deeper than 128 levels"

eq "$(fingerprint "$outside")" "$before_outside" "outside the dataset"
eq "$(fingerprint "$HOME")" "$before_home" "the victim's home"
echo "ok"
