#!/usr/bin/env bash
# A saved plan's context is the command's record of what it decided (the message, the
# revision, the bookmark, the options). The file is untrusted input and its digest can be
# recomputed, so a field of the wrong type used to surface as a json type_error, or be read as
# its default. Now each command reads its context into a typed payload first: the victim's
# own plans, edited and re-sealed so that one context field has another type, are refused
# with one line naming the plan and the field, nothing is written, and the plans as saved
# still apply.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

attacker_memory_dataset
victim_clone
mkdir -p "$TMP/plans"

# refused LINE CMD...: the command refuses with exactly `error: LINE` and changes nothing in
# the dataset or the store.
refused() {
  local line=$1
  shift
  local store_before
  store_before=$(cat "$TETHER_MEMORY_STORE" 2>/dev/null || true)
  remember_state
  fails 1 tether "$@"
  err_lines 1
  eq "$ERR" "error: $line" "stderr of $*"
  unchanged "$*"
  eq "$(cat "$TETHER_MEMORY_STORE" 2>/dev/null || true)" "$store_before" "the store after $*"
}

# ---- commit ---------------------------------------------------------------------------------
mem_edit sys1 advance >/dev/null
ok tether commit -m "moved" --plan "$TMP/plans/commit.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/commit-states.json" 'p["context"]["states"] = 42'
refused "the commit plan's \"states\" is not an object; re-run the plan" commit --from-plan "$TMP/plans/commit-states.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/commit-message.json" 'p["context"]["message"] = ["moved"]'
refused "the commit plan's \"message\" is not a string; re-run the plan" commit --from-plan "$TMP/plans/commit-message.json"
reseal "$TMP/plans/commit.json" "$TMP/plans/commit-novcs.json" 'del p["context"]["no_vcs"]'
refused "the commit plan's \"no_vcs\" is missing; re-run the plan" commit --from-plan "$TMP/plans/commit-novcs.json"
ok tether commit --from-plan "$TMP/plans/commit.json"
eq "$(git log -1 --format=%s)" "moved" "the saved commit's message"

# ---- new --------------------------------------------------------------------------------------
ok tether new -b feature --plan "$TMP/plans/new.json"
reseal "$TMP/plans/new.json" "$TMP/plans/new-bookmark.json" 'p["context"]["bookmark"] = 42'
refused "the new plan's \"bookmark\" is not a string or null; re-run the plan" new --from-plan "$TMP/plans/new-bookmark.json"
reseal "$TMP/plans/new.json" "$TMP/plans/new-create.json" 'p["context"]["create"] = "yes"'
refused "the new plan's \"create\" is not true or false; re-run the plan" new --from-plan "$TMP/plans/new-create.json"
ok tether new --from-plan "$TMP/plans/new.json"
eq "$(git branch --show-current)" "feature" "the bookmark new made"

# ---- restore ----------------------------------------------------------------------------------
ok tether restore db --from HEAD~1 --plan "$TMP/plans/restore.json"
reseal "$TMP/plans/restore.json" "$TMP/plans/restore-commit.json" 'p["context"]["from_commit"] = None'
refused "the restore plan's \"from_commit\" is not a string; re-run the plan" \
  restore db --from HEAD~1 --from-plan "$TMP/plans/restore-commit.json"
reseal "$TMP/plans/restore.json" "$TMP/plans/restore-discard.json" 'p["context"]["discard"] = 1'
refused "the restore plan's \"discard\" is not true or false; re-run the plan" \
  restore db --from HEAD~1 --from-plan "$TMP/plans/restore-discard.json"

# ---- promote ----------------------------------------------------------------------------------
ok tether promote --plan "$TMP/plans/promote.json"
reseal "$TMP/plans/promote.json" "$TMP/plans/promote-subset.json" 'p["context"]["subset"] = ["db", 1]'
refused "the promote plan's \"subset\" is not a list of strings; re-run the plan" \
  promote --from-plan "$TMP/plans/promote-subset.json"

# ---- repair -----------------------------------------------------------------------------------
ok tether repair --plan "$TMP/plans/repair.json"
reseal "$TMP/plans/repair.json" "$TMP/plans/repair-history.json" 'p["context"]["all_history"] = "yes"'
refused "the repair plan's \"all_history\" is not true or false; re-run the plan" repair --from-plan "$TMP/plans/repair-history.json"
ok tether repair --from-plan "$TMP/plans/repair.json"

# ---- undo (of the new) --------------------------------------------------------------------------
ok tether undo --plan "$TMP/plans/undo.json"
reseal "$TMP/plans/undo.json" "$TMP/plans/undo-target.json" 'p["context"]["target"] = 42'
refused "the undo plan's \"target\" is not a string; re-run the plan" undo --from-plan "$TMP/plans/undo-target.json"
ok tether undo --from-plan "$TMP/plans/undo.json"
echo ok
