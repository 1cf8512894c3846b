#!/usr/bin/env bash
# `tether undo` of a commit uncommits it: HEAD goes back to the parent, the manifests are
# working-tree changes again and the pin stays in the store. The entry shows `(undone by ID)`
# and a second undo of it is refused. A commit that is no longer HEAD cannot be uncommitted:
# undo fails (exit 1) and records nothing as undone. Undo of add/set restores the manifests.
# Undo plans first: --dry-run prints the plan and changes nothing (not the op log, not HEAD),
# --plan saves it, --from-plan applies it, and refuses it as stale once HEAD moved or the op
# log gained an entry.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
fails 1 tether undo
err_has "error: nothing to undo"
ok tether add m sys1 --kind memory
ok tether commit -m first
c1=$(git rev-parse HEAD)
mem_edit sys1 advance >/dev/null
ok tether commit -m second --json
c2=$(json 'j["vcs_commit"]')
pin2=$(json 'j["pinned"]["m"]')
op=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "commit"][-1])' .tether/ops.jsonl)
manifest=$(cat .tether/objects/m.toml)

remember_state
ok tether undo --dry-run
out_has "plan: undo (1 write(s))"
out_has "  uncommit  ${c2:0:12}  its manifests become working-tree changes again (pins kept)"
unchanged "undo --dry-run"
ok tether undo --dry-run --json
eq "$(json 'j["command"]')" "undo"
eq "$(json 'j["context"]["target"]')" "$op"
eq "$(json 'j["context"]["command"]')" "commit"
eq "$(json 'j["context"]["summary"]')" "pinned m; vcs ${c2:0:12}"
eq "$(json '[a["op"] for a in j["actions"]]')" "['uncommit']"
eq "$(json 'sorted(p["kind"] for p in j["preconditions"])')" "['op_log_head', 'op_not_undone', 'vcs_head', 'workspace_id']"
ok tether undo --plan "$TMP/undo.json"
err_has "plan written to $TMP/undo.json"
unchanged "undo --plan"
fails 1 tether undo 000000000000 --from-plan "$TMP/undo.json"
err_has "error: the plan in $TMP/undo.json undoes $op, not 000000000000"
unchanged "undo --from-plan with another OP_ID"

ok tether undo --from-plan "$TMP/undo.json"
out_has "undid $op (commit: pinned m; vcs ${c2:0:12})"
out_has "  restored   uncommitted ${c2:0:12}; its manifests are working-tree changes again (pins kept)"
[ -z "$ERR" ] || fail "undo printed on stderr: $ERR"
eq "$(git rev-parse HEAD)" "$c1" "HEAD after undo"
eq "$(cat .tether/objects/m.toml)" "$manifest" "the manifest changed"
git diff --quiet HEAD -- .tether/objects/m.toml && fail "the manifest is not a working-tree change"
[ -n "$(mem_tags sys1 | grep -F "$pin2")" ] || fail "the pin was deleted: $(mem_tags sys1)"
ok tether ops
undo_id=$(sed -nE 's/^([0-9a-f]{12})  .*  undo     undid .*$/\1/p' <<<"$OUT")
[ -n "$undo_id" ] || fail "no undo entry"
out_has "commit   pinned m; vcs ${c2:0:12}  (undone by $undo_id)"
out_has "undo     undid $op: pinned m; vcs ${c2:0:12}"
out_lacks "vcs commit gone"
fails 1 tether undo "$op"
err_has "error: $op was already undone by $undo_id"
fails 1 tether undo "$undo_id"
err_has "error: cannot undo 'undo'"
fails 1 tether undo 000000000000
err_has "error: no operation '000000000000' in this workspace's log"
fails 1 tether undo --from-plan "$TMP/undo.json"
err_has "error: $op changed since the undo plan was made (undone by $undo_id); re-run the plan"

# committing again lands the same manifests, reusing the pin
tags=$(mem_tags sys1)
ok tether commit -m "second again"
c3=$(git rev-parse HEAD)
[ "$c3" != "$c1" ] || fail "nothing committed"
grep -qF "$pin2" <(git show HEAD:.tether/objects/m.toml) || fail "the recommit does not name $pin2"
eq "$(mem_tags sys1)" "$tags" "tags after the recommit"

# a commit with another commit on top is not the working copy's parent any more; a plan made
# before that commit is stale
ok tether undo --plan "$TMP/undo3.json"
git commit -q --allow-empty -m "someone else"
commit3=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "commit"][-1])' .tether/ops.jsonl)
head=$(git rev-parse HEAD)
remember_state
fails 1 tether undo --from-plan "$TMP/undo3.json"
err_has "error: the checkout moved since the undo plan was made (now at ${head:0:12}); re-run the plan"
unchanged "stale undo --from-plan"
ok tether undo --dry-run
out_has "  uncommit  ${c3:0:12}  its manifests become working-tree changes again (pins kept)"
out_has "commit ${c3:0:12} is no longer the working copy's parent; uncommit it with jj/git first"
fails 1 tether undo
err_has "error: cannot undo $commit3 (commit):"
err_has "  commit ${c3:0:12} is no longer the working copy's parent; uncommit it with jj/git first"
eq "$(git rev-parse HEAD)" "$head" "HEAD moved"
ok tether ops --json -n 2
eq "$(json 'j[0]["command"]')" "undo"
eq "$(json 'j[0]["result"]["failed"]')" "nothing restored"
eq "$(json 'j[1]["undone_by"]')" "None"

# add and set come back from the manifests they replaced; a plan made before the set is stale
ok tether add n sys2 --kind memory
ok tether undo --plan "$TMP/undo-add.json"
ok tether set n --pin record
setop=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "set"][-1])' .tether/ops.jsonl)
fails 1 tether undo --from-plan "$TMP/undo-add.json"
err_has "error: the op log changed since the undo plan was made (its newest entry is now $setop (set)); re-run the plan"
[ -e .tether/objects/n.toml ] || fail "the stale plan removed n"
ok tether undo --dry-run
out_has "restore-manifest  n  manifest  as it was before set"
grep -q 'pin = "record"' .tether/objects/n.toml || fail "set did not write"
ok tether undo --json
eq "$(json 'j["command"]')" "set"
eq "$(json 'j["restored"]')" "['n: manifest restored']"
grep -q 'pin = "record"' .tether/objects/n.toml && fail "set not undone"
ok tether undo
out_has "undid"
out_has "  restored   n: manifest removed again"
[ ! -e .tether/objects/n.toml ] || fail "add not undone"
