#!/usr/bin/env bash
# promote lands whole or not at all under refusal: every object is asked before the first
# move whether its backend would refuse. With one object's checked-out base dirty among
# several git objects, promote refuses naming that object and the way out, holds every other
# move, exits 1, and no base, fork, working tree or trunk changes -- also when keys are named.
# A merge that would conflict is refused the same way before anything moves. Once the dirty
# base is settled, the bookmark lands whole.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.feature"
for i in 1 2 3 4; do
  new_code_repo "$TMP/code$i"
  ok tether add "c$i" "$TMP/code$i" --kind git
done
ok tether commit -m baseline
trunk0=$(git rev-parse main)

ok tether new -b feature
for i in 1 2 3 4; do
  ok tether open "c$i"
  git -C "$TMP/code$i" worktree add -q "$TMP/wt$i" "$fork"
  code_commit "$TMP/wt$i" "feature$i.py" "print($i)" >/dev/null
  git -C "$TMP/code$i" worktree remove "$TMP/wt$i"
done
ok tether commit -m "feature work"

heads() { for i in 1 2 3 4; do echo "$i $(git -C "$TMP/code$i" rev-parse main) $(git -C "$TMP/code$i" rev-parse "$fork")"; done; }
before=$(heads)

# c3's base is checked out with a change of someone's own
printf 'print("local edit")\n' >>"$TMP/code3/main.py"
outside_before=$(fingerprint "$TMP/code3")
remember_state
fails 1 tether promote
out_matches "^  refused        c3: main is checked out in $TMP/code3 with uncommitted changes \(main\.py\); commit or stash them there first$"
for i in 1 2 4; do out_matches "^  held           c$i: would fast-forward: .*held because c3 refused"; done
out_has "nothing moved: a bookmark lands whole or not at all"
out_lacks "fast-forwarded"
eq "$(heads)" "$before" "a refused promote moved a base or a fork"
eq "$(git rev-parse main)" "$trunk0" "the trunk"
eq "$(fingerprint "$TMP/code3")" "$outside_before" "the dirty working tree of code3"
unchanged "a refused promote"
for i in 1 2 4; do [ -z "$(git -C "$TMP/code$i" status --porcelain)" ] || fail "code$i is not clean"; done

# the same with keys named: the named set lands whole or not at all
fails 1 tether promote c1 c3
out_matches "^  refused        c3: main is checked out in "
out_matches "^  held           c1: "
eq "$(heads)" "$before" "a refused subset moved a base"
fails 1 tether promote --json
eq "$(json 'sorted(j["refused"])')" "['c3']"
eq "$(json 'sorted(j["held"])')" "['c1', 'c2', 'c4']"
eq "$(json 'j["fast_forwarded"]')" "{}"
eq "$(heads)" "$before" "a refused --json promote moved a base"

# the dry run shows the same refusal, and a saved plan made now is refused again at apply
ok tether promote --dry-run
out_matches "refuse +c3 +\[git\] main +main is checked out in "

# settled. A saved plan edited by hand (c2's move aimed at code1's repository) with its
# digest recomputed is planned again and refused; nothing moves
git -C "$TMP/code3" checkout -q -- main.py
ok tether promote --plan "$TMP/plan.json"
python3 - "$TMP/plan.json" <<'PY'
import hashlib, json, sys
path = sys.argv[1]
p = json.load(open(path))
acts = {a["key"]: a for a in p["actions"]}
acts["c2"]["params"]["locator"] = acts["c1"]["params"]["locator"]
p.pop("digest")
p["digest"] = hashlib.sha256(json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()
json.dump(p, open(path + ".edited", "w"))
PY
fails 1 tether promote --from-plan "$TMP/plan.json.edited"
err_has "the saved promote plan does not match what promote plans now ('c2' differs); re-run the plan and review it again"
err_lines 1
eq "$(heads)" "$before" "an edited plan moved a base"
eq "$(git rev-parse main)" "$trunk0" "an edited plan moved the trunk"

# the bookmark lands whole from the plan as saved, the trunk follows
ok tether promote --from-plan "$TMP/plan.json"
for i in 1 2 3 4; do
  out_matches "^  fast-forwarded c$i -> "
  eq "$(git -C "$TMP/code$i" rev-parse main)" "$(git -C "$TMP/code$i" rev-parse "$fork")" "main of code$i"
  [ -z "$(git -C "$TMP/code$i" status --porcelain)" ] || fail "code$i is not clean after promote"
  [ -f "$TMP/code$i/feature$i.py" ] || fail "code$i's working tree lacks the promoted file"
done
out_matches "^main -> [0-9a-f]{12}$"

# a merge that would conflict is refused before anything moves: c1 would merge cleanly
# (its main moved elsewhere), c2's merge conflicts; neither base moves
ok tether new -b clash
fork2="tether.ws.$ds.clash"
for i in 1 2; do
  ok tether open "c$i"
  git -C "$TMP/code$i" worktree add -q "$TMP/wt$i" "$fork2"
  code_commit "$TMP/wt$i" main.py "print(\"ours $i\")" >/dev/null
  git -C "$TMP/code$i" worktree remove "$TMP/wt$i"
done
ok tether commit -m "clash work"
code_commit "$TMP/code1" other.py 'print("theirs")' >/dev/null
code_commit "$TMP/code2" main.py 'print("theirs")' >/dev/null
m1=$(git -C "$TMP/code1" rev-parse main) m2=$(git -C "$TMP/code2" rev-parse main)
fails 1 tether promote
out_matches "^  refused        c2: merging [0-9a-f]{12} into main would conflict in 1 file\(s\): main\.py; merge them by hand on main$"
out_has "                   conflict: main.py"
out_matches "^  held           c1: would merge: "
out_lacks "merged "
eq "$(git -C "$TMP/code1" rev-parse main)" "$m1" "c1's main moved though c2's merge was refused"
eq "$(git -C "$TMP/code2" rev-parse main)" "$m2" "c2's main"
for i in 1 2; do [ -z "$(git -C "$TMP/code$i" status --porcelain)" ] || fail "code$i is not clean after a refused merge"; done
