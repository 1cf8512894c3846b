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
