#!/usr/bin/env bash
# A store gc cannot list is accounted as failed: exit 3, stderr names the object and says it
# cannot list its pins, and none of that store's pins is released -- while a reachable store's
# unreferenced pin is. Once the store is back, the pin it held is still there and gc
# releases it.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$1" tag -l 'tether.*' | sort; }
pinned() { json "j['pinned']['$1']"; }
new_code_repo "$TMP/code1"
new_code_repo "$TMP/code2"
new_dataset
ok tether add code1 ../code1 --kind git
ok tether add code2 ../code2 --kind git
ok tether commit -m X1
for n in 2 3; do
  code_commit "$TMP/code1" main.py "print(\"one $n\")" >/dev/null
  code_commit "$TMP/code2" main.py "print(\"two $n\")" >/dev/null
  ok tether commit -m "X$n" --json
  eval "one$n=\$(pinned code1) two$n=\$(pinned code2)"
done
ok tether abandon HEAD~1
out_has "$one2"
out_has "$two2"
tags1=$(tags "$TMP/code1")
tags2=$(tags "$TMP/code2")
grep -qx "$one2" <<<"$tags1" || fail "code1 lacks $one2"
grep -qx "$two2" <<<"$tags2" || fail "code2 lacks $two2"

mv "$TMP/code2" "$TMP/code2.gone"
# the dry run: exit 3, the failure on stderr, the reachable store's pin planned
fails 3 tether gc
err_matches "^error: code2: cannot list its pins: "
out_has "$one2"
out_lacks "$two2"
out_has "code2: cannot list its pins, so none of them is released ("
eq "$(tags "$TMP/code1")" "$tags1" "code1 tags after the dry run"
fails 3 tether gc --json
eq "$(json 'sorted(j["context"]["unreachable"])')" "['code2']" "unreachable stores in the JSON plan"
[[ "$(json 'j["context"]["unreachable"]["code2"]')" == "cannot list its pins: "* ]] || fail "JSON plan: $OUT"
eq "$(json '[a["target"] for a in j["actions"] if a["op"] == "unpin"]')" "['$one2']" "planned unpins"

fails 3 tether gc --no-dry-run
err_matches "^error: code2: cannot list its pins: "
out_has "unpinned 1 pin(s)"
out_has "  git: ${one2#tether.}"
out_lacks "${two2#tether.}"
eq "$(tags "$TMP/code1")" "$(grep -vx "$one2" <<<"$tags1")" "code1 tags after gc"

# back: nothing of code2 was released, and now it is
mv "$TMP/code2.gone" "$TMP/code2"
eq "$(tags "$TMP/code2")" "$tags2" "code2 tags after the failed gc"
ok tether gc --no-dry-run
[ -z "$ERR" ] || fail "gc complained: $ERR"
out_has "unpinned 1 pin(s)"
out_has "  git: ${two2#tether.}"
eq "$(tags "$TMP/code2")" "$(grep -vx "$two2" <<<"$tags2")" "code2 tags after the second gc"
eq "$(tags "$TMP/code1")" "$(grep -vx "$one2" <<<"$tags1")" "code1 tags after the second gc"
ok tether verify --all-history
out_lacks "missing"

# abandon with a store it cannot list: the commits go, the preview does not claim that
# nothing became unreferenced, and the failure is on stderr (exit 3); with --gc the
# reachable store's pin is released and the unlistable one's is kept
for n in 4 5 6 7; do
  code_commit "$TMP/code1" main.py "print(\"one $n\")" >/dev/null
  code_commit "$TMP/code2" main.py "print(\"two $n\")" >/dev/null
  ok tether commit -m "X$n" --json
  eval "one$n=\$(pinned code1) two$n=\$(pinned code2)"
done
tags1=$(tags "$TMP/code1")
tags2=$(tags "$TMP/code2")
mv "$TMP/code2" "$TMP/code2.gone"
x6=$(git rev-parse HEAD~1)
fails 3 tether abandon HEAD~1
out_matches "^abandoned ${x6:0:12}$"
out_lacks "nothing became unreferenced"
out_has "$one6"
out_has "code2: cannot list its pins, so none of them is released ("
err_matches "^error: code2: cannot list its pins: "
eq "$(git log -1 --format=%s HEAD~1)" "X5" "history after abandon"
eq "$(tags "$TMP/code1")" "$tags1" "code1 tags after abandon"
x4=$(git rev-parse HEAD~2)
fails 3 tether abandon HEAD~2 --gc
out_matches "^abandoned ${x4:0:12}$"
out_lacks "nothing became unreferenced"
out_has "unpinned 2 pin(s)"
out_has "  git: ${one4#tether.}"
out_has "  git: ${one6#tether.}"
err_matches "^error: code2: cannot list its pins: "
eq "$(tags "$TMP/code1")" "$(grep -vxF -e "$one4" -e "$one6" <<<"$tags1")" "code1 tags after abandon --gc"
mv "$TMP/code2.gone" "$TMP/code2"
eq "$(tags "$TMP/code2")" "$tags2" "code2 tags after abandon --gc"
ok tether gc --no-dry-run
eq "$(tags "$TMP/code2")" "$(grep -vxF -e "$two4" -e "$two6" <<<"$tags2")" "code2 tags after the last gc"
ok tether verify --all-history
out_lacks "missing"
