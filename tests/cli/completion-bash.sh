#!/usr/bin/env bash
# `tether completion bash` prints a completion script made from the command line itself:
# sourced into bash, it completes every command `tether help` lists, each command's own
# options (and only those), and paths elsewhere. Another shell is a usage error.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
ok tether completion bash
printf '%s\n' "$OUT" >"$TMP/tether.bash"
bash -n "$TMP/tether.bash" || fail "the script does not parse"
# complete WORD...: what bash offers for the last word of `WORD...`, one per line.
complete() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tether; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$TMP/tether.bash" "$@"
}
eq "$(complete tether ad)" "add"
eq "$(complete tether add --po)" "--port"
eq "$(complete tether commit --mes)" "--message"
got=$(complete tether status --)
grep -qx -- "--snapshot" <<<"$got" || fail "status --snapshot not offered: $got"
grep -qx -- "--json" <<<"$got" || fail "status --json not offered"
grep -qx -- "--kind" <<<"$got" && fail "status offered add's --kind"
mkdir -p "$TMP/data dir"
eq "$(complete tether add "$TMP/data")" "$TMP/data dir"
# Every command the help lists completes as the first word.
ok tether help
commands=$(awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }' <<<"$OUT")
[ "$(wc -l <<<"$commands")" -ge 26 ] || fail "help lists too few commands: $commands"
offered=$(complete tether "")
for c in $commands; do grep -qx -- "$c" <<<"$offered" || fail "$c is not offered"; done
fails 2 tether completion zsh
err_has "zsh"
