#!/usr/bin/env bash
# Keys that could escape .tether/objects or are ambiguous are refused with the key quoted.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
remember_state
for key in ../x a//b /abs a/./b trailing/ ..; do
  fails 1 tether add "$key" "$TMP/d" --kind file
  err_lines 1
  eq "$ERR" "error: unsafe object key: '$key'"
  unchanged "$key"
done
# a backslash or a control character: the key is quoted Python-style (escaped)
fails 1 tether add 'a\b' "$TMP/d" --kind file
err_has "error: unsafe object key: 'a\\\\b'"
fails 1 tether add "$(printf 'tab\tx')" "$TMP/d" --kind file
err_has "error: unsafe object key: 'tab\\tx'"
unchanged
[ ! -e "$TMP/x.toml" ] && [ ! -e "$DS/.tether/x.toml" ] || fail "a manifest escaped objects/"
