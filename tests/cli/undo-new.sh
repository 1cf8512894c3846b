#!/usr/bin/env bash
# `tether undo` of `new -b X --eager` deletes the branches it created and the bookmark, and
# returns the working copy to the bookmark it was on. A created branch that gained writes
# makes undo refuse (touching nothing) until --discard. A lazy fork made by a writable open
# is its own `fork` entry, undone on its own. The undo plan lists each part (--dry-run changes
# nothing); the refusal comes at plan time, and a saved --discard plan is stale once the
# branch it deletes moved.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add m sys1 --kind memory
ok tether commit -m first
branch() { mem "s['systems']['sys1']['branches'].get('$1')"; }
X=tether.ws.$id.x Y=tether.ws.$id.y Z=tether.ws.$id.z
ws_before=$(cat .tether/workspace.toml)

ok tether new -b x --eager
eq "$(branch "$X")" "sys1:s0"
eq "$(git branch --show-current)" "x"
newop=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "new"][-1])' .tether/ops.jsonl)
remember_state
ok tether undo --dry-run
out_has "plan: undo (4 write(s))"
out_matches "^ +delete-branch  m  \[memory\] $X  created by new \(now .*\)$"
out_matches "^ +restore-workspace     workspace.toml  .*working_refs.m"
out_matches "^ +return-vcs     main  the working copy goes back where new found it$"
out_matches "^ +delete-bookmark     x  created by new -b$"
unchanged "undo --dry-run"
eq "$(branch "$X")" "sys1:s0"
ok tether undo --dry-run --json
eq "$(json '[(p["kind"], p["key"], p["params"].get("ref")) for p in j["preconditions"] if p["kind"] == "ref_head"]')" "[('ref_head', 'm', '$X')]"
ok tether undo
out_has "undid $newop (new: forked m; at x)"
out_has "  restored   m: deleted $X"
out_has "  restored   workspace.toml restored"
out_has "  restored   VCS working copy back where it was"
out_has "  restored   bookmark x deleted"
eq "$(branch "$X")" "None" "the created branch"
eq "$(git branch --show-current)" "main" "checked-out branch"
git rev-parse -q --verify refs/heads/x >/dev/null && fail "bookmark x still exists"
eq "$(cat .tether/workspace.toml)" "$ws_before" "workspace.toml"
ok tether status

# writes on the created branch: refused, then --discard
ok tether new -b y --eager
mem_edit sys1 write "$Y" >/dev/null
remember_state
fails 1 tether undo
err_has "error: refusing to undo: branches gained writes; commit them or pass --discard"
err_matches "^  m: $Y has writes since \(.*\)$"
unchanged "refused undo"
[ "$(branch "$Y")" != "None" ] || fail "the branch was deleted"
eq "$(git branch --show-current)" "y"
fails 1 tether undo --dry-run
err_has "error: refusing to undo: branches gained writes; commit them or pass --discard"
ok tether undo --discard --plan "$TMP/discard.json"
out_matches "^ +delete-branch  m  \[memory\] $Y  created by new \(now .*\); --discard: its writes are lost$"
unchanged "undo --discard --plan"
fails 1 tether undo --from-plan "$TMP/discard.json" --discard --dry-run
err_has "error: --from-plan applies a saved plan; it cannot be combined with --dry-run or --plan"
mem_edit sys1 write "$Y" >/dev/null
remember_state
fails 1 tether undo --from-plan "$TMP/discard.json"
err_matches "^error: undo m: $Y moved since the plan was made \(.* -> .*\); re-run the plan$"
unchanged "stale undo --from-plan"
ok tether undo --discard
out_has "  restored   m: deleted $Y"
out_has "  restored   bookmark y deleted"
eq "$(branch "$Y")" "None"
eq "$(git branch --show-current)" "main"

# lazy: the open's fork is undone first, then the new
ok tether new -b z
ok tether open m
eq "$(branch "$Z")" "sys1:s0"
ok tether undo
out_matches "^undid [0-9a-f]{12} \(fork: forked m -> $Z\)$"
out_has "  restored   m: deleted $Z"
eq "$(branch "$Z")" "None"
grep -q '^\[pending_forks\]' .tether/workspace.toml || fail "the fork is not pending again: $(cat .tether/workspace.toml)"
eq "$(git branch --show-current)" "z"
ok tether undo
out_matches "^undid [0-9a-f]{12} \(new: deferred m; at z\)$"
out_has "  restored   bookmark z deleted"
eq "$(git branch --show-current)" "main"

# a bookmark that moved since is kept
ok tether new -b w
git commit -q --allow-empty -m "on w"
git switch -q main
ok tether undo
out_has "  skipped    VCS working copy has moved since; not returning it"
out_has "  skipped    bookmark w has moved since; kept"
git rev-parse -q --verify refs/heads/w >/dev/null || fail "bookmark w was deleted"
