#!/usr/bin/env bash
# abandon + gc of a git object: abandoning the middle of three dataset commits previews its
# pin as the only one becoming unreferenced; `gc` (a dry run) lists exactly that tag and
# touches nothing; `gc --no-dry-run` deletes only that tag from the object's repository;
# `abandon --gc` does both in one step. A pin that two commits name survives the abandon of
# one of them and is released once the other goes too.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$1" tag -l 'tether.*' | sort; }
# the targets of the `unpin` lines of a plan in OUT, sorted
unpins() { { grep -E '^ +unpin  ' <<<"$OUT" || true; } | grep -oE 'tether\.[0-9a-f]{8}\.[0-9a-f]{16}' | sort || true; }
pinned() { json "j['pinned']['$1']"; }

new_code_repo "$TMP/code"
new_dataset
ok tether add code ../code --kind git
ok tether commit -m A --json
tagA=$(pinned code)
shaA=$(git -C "$TMP/code" rev-parse HEAD)
code_commit "$TMP/code" main.py 'print("B")' >/dev/null
ok tether commit -m B --json
tagB=$(pinned code)
dsB=$(json 'j["vcs_commit"]')
code_commit "$TMP/code" main.py 'print("C")' >/dev/null
ok tether commit -m C --json
tagC=$(pinned code)
shaC=$(git -C "$TMP/code" rev-parse HEAD)
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagB" "$tagC" | sort)" "three tags"
[ "$(git rev-parse HEAD~1)" == "$dsB" ] || fail "HEAD~1 is not the B commit"

# abandon the B try: only B's pin becomes unreferenced; nothing is released yet
ok tether abandon HEAD~1
out_matches "^abandoned ${dsB:0:12}$"
eq "$(unpins)" "$tagB" "abandon's preview"
out_has "(not applied; \`tether gc --no-dry-run\` releases these, or re-run with --gc)"
eq "$(git log --format=%s main | head -3 | tr '\n' ' ')" "C A initial " "dataset history"
grep -qx "sha = \"$shaC\"" .tether/objects/code.toml || fail "C's manifest lost: $(cat .tether/objects/code.toml)"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagB" "$tagC" | sort)" "tags after abandon"

# gc is a dry run by default
remember_state
ok tether gc
out_has "plan: gc (1 write(s))"
eq "$(unpins)" "$tagB" "gc dry run"
out_has "(dry run; \`tether gc --no-dry-run\` applies it)"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagB" "$tagC" | sort)" "tags after the dry run"
unchanged "gc dry run"
ok tether gc --json
eq "$(json '[a["target"] for a in j["actions"] if a["op"] == "unpin"]')" "['$tagB']" "gc --json plan"

ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagB#tether.}"
eq "$(grep -c '^  git: ' <<<"$OUT")" "1" "released pins"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagC" | sort)" "tags after gc"
eq "$(git -C "$TMP/code" rev-parse "$tagA")" "$shaA" "A's tag target"
eq "$(git -C "$TMP/code" rev-parse "$tagC")" "$shaC" "C's tag target"
ok tether verify --all-history
out_lacks "missing"
ok tether gc
eq "$OUT" "  gc: nothing to do"
ok tether gc --no-dry-run
out_has "unpinned 0 pin(s)"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagC" | sort)" "tags after a second gc"

# abandon --gc: previewed and released in one step
code_commit "$TMP/code" main.py 'print("D")' >/dev/null
ok tether commit -m D --json
tagD=$(pinned code)
dsD=$(json 'j["vcs_commit"]')
code_commit "$TMP/code" main.py 'print("E")' >/dev/null
ok tether commit -m E --json
tagE=$(pinned code)
ok tether abandon HEAD~1 --dry-run
out_has "abandon-commit"
out_has "${dsD:0:12}"
eq "$(git rev-parse HEAD~1)" "$dsD" "the dry run abandoned"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagC" "$tagD" "$tagE" | sort)" "tags after abandon --dry-run"
ok tether abandon HEAD~1 --gc
out_matches "^abandoned ${dsD:0:12}$"
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagD#tether.}"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagC" "$tagE" | sort)" "tags after abandon --gc"
ok tether gc
eq "$OUT" "  gc: nothing to do"

# a shared pin: S1 and S2 record the same code state (only `other` changes between them)
new_code_repo "$TMP/other"
sha_shared=$(code_commit "$TMP/code" main.py 'print("shared")')
ok tether add other ../other --kind git
ok tether commit -m S1 --json
tagS=$(pinned code)
tagO1=$(pinned other)
code_commit "$TMP/other" o.py 'o = 2' >/dev/null
ok tether commit -m S2 --json
tagO2=$(pinned other)
[ "$(json 'j["pinned"].get("code")')" == "None" ] || [ "$(pinned code)" == "$tagS" ] || fail "S2 pinned code anew"
grep -qx "pin = \"${tagS#tether.}\"" .tether/objects/code.toml || grep -qF "${tagS#tether.}" .tether/objects/code.toml ||
  fail "S2's code manifest does not name the shared pin: $(cat .tether/objects/code.toml)"
code_commit "$TMP/code" main.py 'print("after")' >/dev/null
ok tether commit -m S3 --json
tagS3=$(pinned code)
[ "$(git log -1 --format=%s HEAD~2)" == "S1" ] || fail "HEAD~2 is not S1"
ok tether abandon HEAD~2 --gc
# S1's `other` pin goes; the shared code pin stays (S2 names it)
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagO1#tether.}"
out_lacks "${tagS#tether.}"
grep -qx "$tagS" <<<"$(tags "$TMP/code")" || fail "the shared pin was released with S1"
eq "$(git -C "$TMP/code" rev-parse "$tagS")" "$sha_shared" "shared tag target"
grep -qx "$tagO1" <<<"$(tags "$TMP/other")" && fail "S1's other pin is still there"
ok tether gc
eq "$OUT" "  gc: nothing to do"
# now S2 goes: nothing names the shared pin any more
[ "$(git log -1 --format=%s HEAD~1)" == "S2" ] || fail "HEAD~1 is not S2"
ok tether abandon HEAD~1
eq "$(unpins)" "$tagS" "abandon S2's preview"
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagS#tether.}"
grep -qx "$tagS" <<<"$(tags "$TMP/code")" && fail "the shared pin survived"
eq "$(tags "$TMP/code")" "$(printf '%s\n' "$tagA" "$tagC" "$tagE" "$tagS3" | sort)" "code tags at the end"
eq "$(tags "$TMP/other")" "$tagO2" "other tags at the end"
ok tether verify --all-history
out_lacks "missing"
