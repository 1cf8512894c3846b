#!/usr/bin/env bash
# A saved plan (--plan FILE) is applied with --from-plan. Its digest only catches accidents:
# anyone who can edit the file can recompute it. Before, an edited commit plan with
# `pin_id = "deadbeef.0000000000000001"` made a tag in another dataset's namespace. Now every
# value tether can derive is derived again and must match (pin ids from kind, identity and
# state; kinds and locators from the manifests; upstream branches), branches must be inside
# this dataset's namespaces, and new, restore, gc, repair, abandon, drop and forget-workspace
# plans are planned again in full. The attacker edits plans the victim saved (and re-seals
# them); each is refused with one line, nothing is tagged, forked, deleted, rewritten or
# committed; the unedited plans still apply.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

attacker_memory_dataset
victim_clone
id=$(sed -n 's/^id = "\(.*\)"$/\1/p' tether.toml)
[ -n "$id" ] || fail "no dataset id"
OUTSIDE=$(fingerprint "$TMP/attacker")
mkdir -p "$TMP/plans"

# refused PLAN PATTERN CMD...: the command refuses the plan with one error line matching PATTERN
# and changes nothing in the dataset, the store or the attacker's repository.
refused() {
  local pattern=$1
  shift
  local store_before
  store_before=$(cat "$TETHER_MEMORY_STORE" 2>/dev/null || true)
  remember_state
  fails 1 tether "$@"
  err_lines 1
  err_matches "$pattern"
  unchanged "$*"
  eq "$(cat "$TETHER_MEMORY_STORE" 2>/dev/null || true)" "$store_before" "the store after $*"
  [ "$(fingerprint "$TMP/attacker")" == "$OUTSIDE" ] || fail "the attacker's repository changed"
}

# ---- commit: a foreign pin id, a pin id that is not the state's, another kind ------------------
mem_edit sys1 advance >/dev/null
ok tether commit -m "moved" --plan "$TMP/plans/commit.json"
out_matches "pin  db  \[memory\] tether\.$id\.[0-9a-f]{16}"
reseal "$TMP/plans/commit.json" "$TMP/plans/foreign.json" '
a = p["actions"][0]; a["params"]["pin_id"] = "deadbeef.0000000000000001"; a["target"] = "tether.deadbeef.0000000000000001"'
# the re-sealed file passes the digest check: only the pin id gives it away
refused "^error: the saved commit plan names the pin 'deadbeef\.0000000000000001' for db, which is not a pin of this dataset; a plan's digest does not make it trustworthy -- re-run the plan here$" \
  commit --from-plan "$TMP/plans/foreign.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/ownid.json" '
a = p["actions"][0]; a["params"]["pin_id"] = "'"$id"'.0000000000000001"; a["target"] = "tether.'"$id"'.0000000000000001"'
refused "^error: the saved commit plan gives db the pin id $id\.0000000000000001; its kind, identity and state make $id\.[0-9a-f]{16};" \
  commit --from-plan "$TMP/plans/ownid.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/kind.json" 'p["actions"][0]["kind"] = "file"'
refused "^error: the saved commit plan gives db the kind 'file'; it is registered as memory;" \
  commit --from-plan "$TMP/plans/kind.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/key.json" 'p["actions"][0]["key"] = "../../x"'
refused "^error: the saved commit plan names the unsafe object key '\.\./\.\./x';" commit --from-plan "$TMP/plans/key.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/pull.json" 'p["context"]["pull"] = True'
refused "^error: the saved commit plan claims to be a pull's commit, which is never saved;" commit --from-plan "$TMP/plans/pull.json"
[ -z "$(mem_tags sys1 | grep deadbeef || true)" ] || fail "a foreign tag was made: $(mem_tags sys1)"

# ---- new: a fork into another dataset's namespace -------------------------------------------
ok tether new -b feature --plan "$TMP/plans/new.json"
reseal "$TMP/plans/new.json" "$TMP/plans/new-foreign.json" '
for a in p["actions"]:
    if a["op"] in ("fork", "defer-fork"): a["target"] = "tether.ws.deadbeef.feature"
for c in p["preconditions"]:
    if "ref" in c["params"]: c["params"]["ref"] = "tether.ws.deadbeef.feature"'
refused "^error: the saved new plan names the branch 'tether\.ws\.deadbeef\.feature' for db, outside this dataset's namespaces" \
  new --from-plan "$TMP/plans/new-foreign.json"

# ---- forget-workspace: files to delete are planned again, never read from the plan ----------
printf 'precious\n' >"$TMP/precious.txt"
ok tether forget-workspace --plan "$TMP/plans/forget.json"
reseal "$TMP/plans/forget.json" "$TMP/plans/forget-evil.json" '
p["actions"].insert(0, {"op": "delete-file", "key": "", "kind": "", "target": "'"$TMP/precious.txt"'", "detail": "", "params": {}})'
refused "^error: the saved forget-workspace plan is not what tether plans here now \(first difference: delete-file $TMP/precious\.txt\); re-run the plan$" \
  forget-workspace --from-plan "$TMP/plans/forget-evil.json"
eq "$(cat "$TMP/precious.txt")" "precious" "the file a plan named"

# ---- gc: a listing outside .tether/listings ---------------------------------------------------
ok tether gc --plan "$TMP/plans/gc.json"
reseal "$TMP/plans/gc.json" "$TMP/plans/gc-evil.json" '
p["actions"].append({"op": "delete-listing", "key": "", "kind": "", "target": "../../tether.toml", "detail": "", "params": {}})'
refused "^error: the saved gc plan is not what tether plans here now \(first difference: \(none; tether now plans|^error: the saved gc plan is not what tether plans here now \(first difference: delete-listing" \
  gc --from-plan "$TMP/plans/gc-evil.json"

# ---- the plans as saved still apply -------------------------------------------------------------
ok tether commit --from-plan "$TMP/plans/commit.json"
out_matches "^  pinned db -> tether\.$id\.[0-9a-f]{16}$"
grep -q "^tether\.$id\." <<<"$(mem_tags sys1)" || fail "no pin tag: $(mem_tags sys1)"
[ -z "$(mem_tags sys1 | grep -v "^tether\.$id\." || true)" ] || fail "a tag outside the namespace: $(mem_tags sys1)"
ok tether gc --plan "$TMP/plans/gc2.json"
ok tether gc --from-plan "$TMP/plans/gc2.json"

# ---- abandon: the commits it rewrites away are the ones it planned --------------------------
ok tether abandon HEAD --plan "$TMP/plans/abandon.json"
reseal "$TMP/plans/abandon.json" "$TMP/plans/abandon-evil.json" 'p["context"]["commits"] = ["'"$(git rev-parse HEAD~1)"'"]'
refused "^error: the saved abandon plan is not what tether plans here now \(first difference: abandon-commit $(git rev-parse --short=12 HEAD)\); re-run the plan$" \
  abandon HEAD --from-plan "$TMP/plans/abandon-evil.json"
ok tether abandon HEAD --from-plan "$TMP/plans/abandon.json"
