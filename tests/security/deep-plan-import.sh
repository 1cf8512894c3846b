#!/usr/bin/env bash
# Bounded parsers, plans and import sources: an attacker commits files a victim is asked to
# apply — a saved plan nested 200,000 levels deep (with a recomputed digest), and import
# sources whose locator_json nests 200,000 levels, as a JSON string in a JSONL row, as an
# object in a JSONL row, and as a CSV cell. Each used to crash tether (exit 139). Now each is
# refused with one line naming the file and the limit, and nothing is applied: no manifest,
# no op-log entry, no commit, no store touched.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

attacker_dataset
(
  cd "$TMP/attacker"
  python3 - <<'PY'
import hashlib, json
deep = "[" * 200000 + "]" * 200000
# A commit plan in the saved format with a deep value where a context goes, digest recomputed
# over the same text (the digest only detects accidents).
text = ('{"actions":[],"command":"commit","context":' + deep.replace("[]", "[1]", 1) +
        ',"created_at":"2026-01-01T00:00:00+00:00","format":3,"notes":[],"preconditions":[]}')
digest = hashlib.sha256(text.encode()).hexdigest()
open("plan.json", "w").write(text[:-1] + ',"digest":"' + digest + '"}')
open("rows.jsonl", "w").write(json.dumps({"key": "ok", "kind": "memory", "uri": "sys1"}) + "\n" +
                              json.dumps({"key": "evil", "kind": "memory", "locator_json": deep}) + "\n")
open("rows-object.jsonl", "w").write(json.dumps({"key": "ok", "kind": "memory", "uri": "sys1"}) + "\n" +
                                     '{"key": "evil", "kind": "memory", "locator_json": ' + deep + "}\n")
open("rows.csv", "w").write("key,kind,uri,locator_json\nok,memory,sys1,\nevil,memory,," + '"' + "{\"\"a\"\": " * 100000 +
                            "1" + "}" * 100000 + '"\n')
# Within the limits, the same rows import fine (the refusals are about depth, not content).
open("fine.jsonl", "w").write(json.dumps({"key": "ok", "kind": "memory", "uri": "sys1"}) + "\n" +
                              json.dumps({"key": "nested", "kind": "memory",
                                          "locator_json": json.dumps({"uri": "sys2"})}) + "\n")
PY
  git add -A && git commit -q -m "files to apply"
)
victim_clone
ok tether status --no-snapshot  # the checkout's own files exist before the state is remembered
outside="$TMP/outside"
mkdir -p "$outside" && echo keep >"$outside/file"
before_outside=$(fingerprint "$outside")

no_crash() { [ "$RC" -ne 139 ] && [ "$RC" -ne 134 ] || fail "tether $* crashed (exit $RC)"; }

remember_state
run tether commit --from-plan plan.json
no_crash commit --from-plan
[ "$RC" -eq 1 ] || fail "commit --from-plan: expected exit 1, got $RC"
err_lines 1
eq "$ERR" "error: invalid plan: plan.json: nesting deeper than 160 levels; make the plan again with --plan"
unchanged "commit --from-plan"
[ ! -e .tether/ops.jsonl ] || fail "the refused plan wrote the op log"

for src in rows.jsonl rows-object.jsonl rows.csv; do
  run tether import "$src"
  no_crash import "$src"
  [ "$RC" -eq 1 ] || fail "import $src: expected exit 1, got $RC"
  err_has "nesting deeper than 128 levels"
  [ "$(grep -c '^error: ' <<<"$ERR")" -eq 1 ] || fail "import $src: not one error line"
  [ "$(grep -v '^note: ' <<<"$ERR" | grep -c .)" -eq 1 ] || fail "import $src: more than one line besides the note"
  unchanged "import $src"
  [ ! -e .tether/objects/ok.toml ] || fail "import $src applied the good row"
  [ ! -e .tether/ops.jsonl ] || fail "import $src wrote the op log"
done
run tether import rows.jsonl
err_has "error: locator_json for 'evil': nesting deeper than 128 levels; fix the import source"
run tether import rows-object.jsonl
err_has "error: rows-object.jsonl:2: nesting deeper than 128 levels; fix or remove it"
[ ! -e "$TETHER_MEMORY_STORE" ] || fail "a store was contacted"

ok tether import fine.jsonl
[ -e .tether/objects/nested.toml ] || fail "the row within the limits was not imported"
eq "$(fingerprint "$outside")" "$before_outside" "outside the dataset"
echo ok
