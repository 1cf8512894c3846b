#!/usr/bin/env bash
# `tether log LOCATOR --kind K` lists the history of a store that is not registered (a
# relative path from the current directory, as add resolves it), with --ref and -n as for an
# object, and registers nothing; the ids it prints are what `add --at` takes. A kind without
# history, a store that is not there, and --branch/--set without --kind are refused.
. "$(dirname "$0")/lib.sh"
new_dataset
new_code_repo "$TMP/code"
second=$(code_commit "$TMP/code" main.py 'print("v2")')
first=$(git -C "$TMP/code" rev-parse HEAD~1)
remember_state
ok tether log ../code --kind git
out_matches "^  $second  [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}  change main.py  \[main\]$"
out_matches "^  $first  .*  first version$"
eq "$(grep -c . <<<"$OUT")" "2"
ok tether log ../code --kind git --json
eq "$(json '" ".join(e["id"] for e in j)')" "$second $first"
ok tether log "$TMP/code" --kind git --ref "$first" -n 1
eq "$(grep -c . <<<"$OUT")" "1"
out_has "$first"
unchanged
# What it lists is what add --at takes.
ok tether add code ../code --kind git --at "$first"
eq "$OUT" "added code (git) at $first"

mkdir -p "$TMP/files"
remember_state
fails 1 tether log ../files --kind file
eq "$ERR" "error: [../files] file stores have no native history to list (the file backend lacks HISTORY; \`tether backends\` shows each backend's capabilities)"
fails 1 tether log ../nowhere --kind git
err_has "$TMP/nowhere"
fails 1 tether log code --branch main
eq "$ERR" "error: --branch and --set describe a store that is not registered: pass --kind with them"
fails 1 tether log ../code --kind no-such-kind
err_has "no-such-kind"
unchanged
