#!/usr/bin/env bash
# Bounded parsers, the op log: .tether/ops.jsonl is this checkout's own file, but whoever can
# write it (a shared machine, a broken disk, a hand edit) must not be able to stop recovery.
# A 200,000-deep JSON line used to crash ops/status/undo/repair (exit 139) and one entry with
# `"status": []` made them fail with a raw json.exception. Now each such line is skipped and
# counted: ops, status, undo and repair go on, each warning once, with the line numbers; the
# operations on good lines keep working (undo undoes the real last commit).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
use_memory_store

attacker_dataset
(cd "$TMP/attacker" && "$TETHER" add m sys1 --kind memory >/dev/null && git add -A && git commit -q -m "an object")
victim_clone
ok tether commit -m first
mem_edit sys1 advance >/dev/null
ok tether commit -m second --json
c2=$(json 'j["vcs_commit"]')
c1=$(git rev-parse HEAD~1)
good_lines=$(wc -l <.tether/ops.jsonl)

# The malformed lines, after the good ones: deep JSON (alone, and inside an entry), wrongly typed fields of an entry, of a
# done mark and of a progress record, a torn line and a line over the 64 MiB record limit.
python3 - .tether/ops.jsonl <<'PY'
import json, sys
deep = "[" * 200000 + "]" * 200000
bad = [
    deep,
    '{"id": "eeeeeeeeeeee", "command": "commit", "pre": {"objects": ' + deep + '}}',
    json.dumps({"id": "aaaaaaaaaaaa", "at": "2026-01-01T00:00:00+00:00", "command": "commit", "status": [],
                "result": {}, "pre": {}}),
    json.dumps({"id": "bbbbbbbbbbbb", "at": 5, "command": "set", "result": "x"}),
    json.dumps({"done": ["x"], "result": {}}),
    json.dumps({"progress": {"id": 1}, "action": "pin"}),
    '{"id": "cccccccccccc", "command": "commit", "pre": {"objects": ',
    '{"pad": "' + "x" * (65 << 20) + '"}',
]
with open(sys.argv[1], "a") as f:
    for line in bad:
        f.write(line + "\n")
PY
first_bad=$((good_lines + 1))
lines="lines $first_bad, $((first_bad + 1)), $((first_bad + 2)), $((first_bad + 3)), $((first_bad + 4)) and 3 more"
warning="warning: .tether/ops.jsonl: skipped 8 malformed line(s) ($lines); the operations on them are left out"

no_crash() { [ "$RC" -ne 139 ] && [ "$RC" -ne 134 ] || fail "tether $* crashed (exit $RC)"; }

run tether ops
no_crash ops
[ "$RC" -eq 0 ] || fail "ops failed (exit $RC)"
err_lines 1
eq "$ERR" "$warning"
out_has "commit   pinned m; vcs ${c2:0:12}"
out_lacks "aaaaaaaaaaaa"
out_lacks "bbbbbbbbbbbb"

run tether ops --json
no_crash ops --json
[ "$RC" -eq 0 ] || fail "ops --json failed (exit $RC)"
eq "$ERR" "$warning"
eq "$(json '[e["command"] for e in j]')" "['commit', 'commit']"

run tether status --no-snapshot
no_crash status
[ "$RC" -eq 0 ] || fail "status failed (exit $RC)"
err_has "$warning"
[ "$(grep -c 'skipped 8 malformed' <<<"$ERR")" -eq 1 ] || fail "status warned more than once"

run tether repair --dry-run
no_crash repair
[ "$RC" -eq 0 ] || fail "repair --dry-run failed (exit $RC)"
err_has "$warning"
[ "$(grep -c 'skipped 8 malformed' <<<"$ERR")" -eq 1 ] || fail "repair warned more than once"

# undo still finds the real last operation and undoes it.
run tether undo
no_crash undo
[ "$RC" -eq 0 ] || fail "undo failed (exit $RC)"
err_has "$warning"
out_has "(commit: pinned m; vcs ${c2:0:12})"
eq "$(git rev-parse HEAD)" "$c1" "HEAD after undo"

run tether repair
no_crash repair
[ "$RC" -eq 0 ] || fail "repair failed (exit $RC)"
err_has "$warning"

# The log itself is left as it was (the skipped lines stay for whoever investigates), and new
# operations append after them and are read back.
[ "$(sed -n "${first_bad}p" .tether/ops.jsonl | head -c 3)" == "[[[" ] || fail "the deep line was rewritten"
ok tether set m --pin record
ok tether ops -n 1
out_has "set      m: pin=native->record"
eq "$(grep -c . <<<"$ERR")" "1" "warnings after a new entry"

# An entry that the undo target's own fields make unusable: a wrongly typed `pre` inside a
# later entry is skipped, and the undo of `set` still restores the manifest.
python3 - .tether/ops.jsonl <<'PY'
import json, sys
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"id": "dddddddddddd", "command": "set", "pre": [], "result": {}}) + "\n")
PY
ok tether undo
out_has "undid "
grep -qx 'pin = "native"' .tether/objects/m.toml || fail "undo of set did not restore the manifest: $(cat .tether/objects/m.toml)"
err_has "skipped 9 malformed line(s)"
echo ok
