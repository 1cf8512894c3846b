#!/usr/bin/env bash
# --plan saves a plan (JSON format 3, digest, preconditions) and changes nothing; --from-plan
# applies it. A saved plan is refused when the world drifted from its preconditions (here: the
# base branch a promote would fast-forward), when it was edited, when it belongs to another
# command, and when combined with --dry-run.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add m sys1 --kind memory
ok tether commit -m first
pin0=$(sed -nE 's/^  pinned m -> (.*)$/\1/p' <<<"$OUT")
branch() { mem "s['systems']['sys1']['branches'].get('$1')"; }
X=tether.ws.$id.x

# ---- new: save, then apply -----------------------------------------------------------------
remember_state
ok tether new -b x --eager --plan "$TMP/p.json"
eq "$ERR" "plan written to $TMP/p.json" "stderr of --plan"
out_matches '^plan: new \(1 write\(s\)\)$'
out_matches "^ {16}fork  m  \[memory\] tether\.ws\.$id\.x  from pin $pin0$"
unchanged "new --plan"
eq "$(branch "$X")" "None" "--plan forked"
eq "$(git branch --show-current)" "main" "--plan switched branches"
git rev-parse -q --verify refs/heads/x >/dev/null && fail "--plan created bookmark x"
! grep -q '"command":"new"' .tether/ops.jsonl || fail "--plan journaled a new"
python3 - "$TMP/p.json" "$(sed -nE 's/^workspace_id = "(.*)"$/\1/p' .tether/workspace.toml)" <<'PY' || fail "saved plan: $(cat "$TMP/p.json")"
import hashlib, json, re, sys
p = json.load(open(sys.argv[1]))
assert p["format"] == 3, p["format"]
# docs/FORMAT.md#the-digest: sha256 over the sorted, compact dump of everything but the digest
content = {k: p[k] for k in ("format", "command", "created_at", "context", "notes", "preconditions", "actions")}
assert set(p) == set(content) | {"digest"}, sorted(p)
assert p["digest"] == hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
assert p["command"] == "new", p["command"]
assert re.fullmatch(r"[0-9a-f]{64}", p["digest"]), p["digest"]
kinds = {c["kind"]: c for c in p["preconditions"]}
assert "workspace_id" in kinds and "manifest_hash" in kinds, kinds
assert kinds["workspace_id"]["expected"] == sys.argv[2], kinds["workspace_id"]
assert re.fullmatch(r"[0-9a-f]{64}", kinds["manifest_hash"]["expected"]), kinds["manifest_hash"]
assert "ref_absent" in kinds, kinds  # a fresh fork binds to its branch not existing yet
assert [a["op"] for a in p["actions"]] == ["fork"], p["actions"]
assert p["context"]["bookmark"] == "x" and p["context"]["eager"] is True, p["context"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)", p["created_at"]), p["created_at"]
PY

# a plan of another command, and --from-plan with --dry-run, are refused before anything runs
fails 1 tether commit --from-plan "$TMP/p.json"
err_has "error: $TMP/p.json is a 'new' plan, expected 'commit'"
fails 1 tether new --from-plan "$TMP/p.json" --dry-run
err_has "error: --from-plan applies a saved plan; it cannot be combined with --dry-run or --plan"
fails 1 tether new --from-plan "$TMP/p.json" --plan "$TMP/p2.json"
err_has "cannot be combined with --dry-run or --plan"
[ ! -e "$TMP/p2.json" ] || fail "a plan was written alongside --from-plan"
unchanged "refused --from-plan"
eq "$(branch "$X")" "None"

# an edited plan is refused
python3 - "$TMP/p.json" "$TMP/edited.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["actions"][0]["detail"] += " (edited)"
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
fails 1 tether new --from-plan "$TMP/edited.json"
err_has "was edited after it was saved"
err_has "re-run the plan"
unchanged "edited plan"
eq "$(branch "$X")" "None" "an edited plan forked"

ok tether new --from-plan "$TMP/p.json"
out_has "on bookmark x; working refs set up"
out_matches "^  m -> tether\.ws\.$id\.x$"
eq "$(branch "$X")" "sys1:s0" "the planned fork"
eq "$(git branch --show-current)" "x" "on the planned bookmark"
grep -q '"command":"new"' .tether/ops.jsonl || fail "the applied plan was not journaled"
# applied once, its branch now exists: applying it again is stale
fails 1 tether new --from-plan "$TMP/p.json"
err_has "re-run the plan"

# ---- promote: plan, then the base branch moves; the plan is refused, nothing moves ---------
w1=$(mem_edit sys1 write "$X")
ok tether commit -m work
out_matches "^  pinned m -> tether\.$id\.[0-9a-f]{16}$"
ok tether promote --plan "$TMP/pp.json"
eq "$ERR" "plan written to $TMP/pp.json"
out_matches '^plan: promote \(1 write\(s\)\)$'
out_has "fast-forward  m  [memory] main  main snapshot_id=sys1:s0 -> snapshot_id=$w1 (base unchanged since fork)"
eq "$(branch main)" "sys1:s0" "promote --plan moved main"
eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"])' "$TMP/pp.json")" "promote"
main_before=$(git rev-parse main)
bm=$(git rev-parse x)
moved=$(mem_edit sys1 advance)
remember_state
fails 1 tether promote --from-plan "$TMP/pp.json"
err_has "base branch moved since the plan was made"
err_has "re-run the plan"
eq "$(branch main)" "$moved" "sys1's main after the refused plan"
eq "$(branch "$X")" "$w1" "the fork after the refused plan"
eq "$(git rev-parse main)" "$main_before" "the trunk moved"
eq "$(git rev-parse x)" "$bm" "the bookmark moved"
unchanged "stale promote plan"

# ---- commit: plan, then apply ----------------------------------------------------------------
w2=$(mem_edit sys1 write "$X")
remember_state
ok tether commit -m m1 --plan "$TMP/c.json"
eq "$ERR" "plan written to $TMP/c.json"
out_matches '^plan: commit \(2 write\(s\)\)$'
out_matches "^ +pin  m  \[memory\] tether\.$id\.[0-9a-f]{16}  native ref at snapshot_id=$w2$"
out_matches "^ +vcs-commit {7}git commit: 'm1'$"
unchanged "commit --plan"
ok tether commit --from-plan "$TMP/c.json"
out_matches "^  pinned m -> tether\.$id\.[0-9a-f]{16}$"
out_matches '^committed [0-9a-f]{12}$'
[ "$(git rev-parse HEAD)" != "$BEFORE_HEAD" ] || fail "HEAD did not move"
eq "$(git log -1 --format=%s)" "m1" "the commit message"
eq "$(git rev-parse HEAD)" "$(git rev-parse x)" "the bookmark follows the commit"
grep -qx "snapshot_id = \"$w2\"" .tether/objects/m.toml || fail "manifest state: $(cat .tether/objects/m.toml)"
# the same plan again: the manifests it was made over are gone
fails 1 tether commit --from-plan "$TMP/c.json"
err_has "manifests changed since the plan was made; re-run the plan"
