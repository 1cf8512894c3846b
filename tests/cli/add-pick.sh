#!/usr/bin/env bash
# add --pick lists the store's history, numbered, on a terminal and asks which entry to start
# at: a number picks by position, anything else the first id it begins, nothing the newest.
# The pick becomes the object's `at`. Without a terminal it is refused with the way out
# (`tether log ... --kind K`, then --at), and so are an answer that matches nothing and a
# store without history; nothing is written then.
. "$(dirname "$0")/lib.sh"
new_dataset
new_code_repo "$TMP/code"
second=$(code_commit "$TMP/code" main.py 'print("v2")')
first=$(git -C "$TMP/code" rev-parse HEAD~1)

on_tty 2 "$TETHER" add code ../code --kind git --pick
[ "$RC" -eq 0 ] || fail "pick by number failed ($RC): $OUT"
grep -qE "^  1\.   $second  [0-9-]{10} [0-9:]{5}  change main.py$" <<<"$OUT" || fail "entry 1 not listed: $OUT"
grep -qE "^  2\.   $first  .*  first version$" <<<"$OUT" || fail "entry 2 not listed: $OUT"
grep -qF "Pick an entry (number or id) [1]:" <<<"$OUT" || fail "no question: $OUT"
grep -qx "added code (git) at $first" <<<"$OUT" || fail "not added at the second entry: $OUT"
grep -qx "at = \"$first\"" .tether/objects/code.toml || fail "manifest at"

# An id prefix; the lone positional of a path kind names the object; an existing key is
# refused before the question.
on_tty 1 "$TETHER" add ../code --kind git --pick
[ "$RC" -eq 1 ] || fail "an existing key was asked about"
grep -qF "Pick an entry" <<<"$OUT" && fail "asked before refusing an existing key"
grep -qx "error: object already exists: code" <<<"$OUT" || fail "existing key message: $OUT"
git clone -q "$TMP/code" "$TMP/code2"
on_tty "${second:0:10}" "$TETHER" add ../code2 --kind git --pick --json
[ "$RC" -eq 0 ] || fail "pick by id failed: $OUT"
grep -qF "\"at\": \"$second\"" <<<"$OUT" || fail "not at the picked id: $OUT"
grep -qF '"key": "code2"' <<<"$OUT" || fail "the key is not the path's last segment: $OUT"
new_code_repo "$TMP/other"
on_tty "" "$TETHER" add other ../other --kind git --pick
grep -qx "added other (git) at $(git -C "$TMP/other" rev-parse HEAD)" <<<"$OUT" || fail "empty answer is not the newest: $OUT"

remember_state
on_tty zzz "$TETHER" add nope ../code --kind git --pick
[ "$RC" -eq 1 ] || fail "a non-matching answer was taken"
grep -qF "error: no entry matches 'zzz'" <<<"$OUT" || fail "no-match message: $OUT"
unchanged
fails 1 tether add nope ../code --kind git --pick </dev/null
eq "$ERR" "error: --pick asks on a terminal, and there is none; list the history with \`tether log ../code --kind git\` and pass --at ID instead"
unchanged
mkdir -p "$TMP/files"
on_tty 1 "$TETHER" add files ../files --kind file --pick
[ "$RC" -eq 1 ] || fail "a store without history was picked from"
grep -qF "no native history" <<<"$OUT" || fail "history capability message: $OUT"
unchanged
fails 2 tether add nope ../code --kind git --pick --at "$first"
