#!/usr/bin/env bash
# `tether ops` lists this checkout's operations newest first with their summaries; a
# commit killed before its VCS commit shows INCOMPLETE (and `undo` refuses it, `repair
# --dry-run` says what it had done); a commit removed by `git reset --hard` behind tether's
# back shows `(vcs commit gone)` and `status` warns about it.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether ops
eq "$OUT" "no operations recorded"
ok tether ops --json
eq "$(json 'len(j)')" "0"

ok tether add m sys1 --kind memory
ok tether commit -m first --json
c1=$(json 'j["vcs_commit"]')
ok tether set m --pin record
ok tether set m --pin native
ok tether ops
eq "$(grep -c . <<<"$OUT")" "4" "entries"
ts='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\+00:00'
out_matches "^[0-9a-f]{12}  $ts  set      m: pin=record->native$"
out_matches "^[0-9a-f]{12}  $ts  set      m: pin=native->record$"
out_matches "^[0-9a-f]{12}  $ts  commit   pinned m; vcs ${c1:0:12}$"
out_matches "^[0-9a-f]{12}  $ts  add      m$"
[[ "$(head -1 <<<"$OUT")" == *"record->native" ]] || fail "not newest first"
ok tether ops -n 2
eq "$(grep -c . <<<"$OUT")" "2" "entries with -n 2"
ok tether ops --json
eq "$(json 'len(j)')" "4"
eq "$(json '[e["command"] for e in j]')" "['set', 'set', 'commit', 'add']"
eq "$(json 'j[2]["result"]["vcs_commit"]')" "$c1"
eq "$(json 'j[2]["status"]')" "done"
eq "$(json 'j[2]["vcs_commit_gone"]')" "False"

# a second commit, then removed from git behind tether's back
mem_edit sys1 advance >/dev/null
ok tether commit -m second --json
c2=$(json 'j["vcs_commit"]')
commit2=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "commit"][-1])' .tether/ops.jsonl)
ok tether status
[ -z "$ERR" ] || fail "status warned before the reset: $ERR"
git reset -q --hard HEAD~1
ok tether ops
out_matches "^$commit2  $ts  commit   pinned m; vcs ${c2:0:12}  \(vcs commit gone\)$"
ok tether ops --json
eq "$(json 'j[0]["vcs_commit_gone"]')" "True"
eq "$(json 'j[1]["vcs_commit_gone"]')" "False"
ok tether status
err_has "warning: dataset commit ${c2:0:12} (op $commit2) is no longer in VCS history: undone or abandoned outside tether; its pins for m are unreferenced; \`gc\` will release them, \`repair\` recreates them if the commit comes back"
ok tether status --json
[ -z "$ERR" ] || fail "status --json warned: $ERR"

# a commit killed after its pin and manifests, before the VCS commit
mem_edit sys1 advance >/dev/null
kill_tether_at_git_commit
run sh -c '"$1" commit -m crash' sh "$TETHER"
[ "$RC" -eq 137 ] || fail "expected tether to die by SIGKILL (exit 137), got $RC"
rm .git/hooks/pre-commit
crashed=$(python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "commit"][-1])' .tether/ops.jsonl)
ok tether ops -n 1
eq "$OUT" "$(grep -E "^$crashed " <<<"$OUT")"
out_matches "^$crashed  $ts  commit   nothing changed  \(INCOMPLETE: never finished; see \`tether repair --dry-run\`\)$"
ok tether ops --json -n 1
eq "$(json 'j[0]["status"]')" "started"
fails 1 tether undo
err_has "error: $crashed (commit) never finished, so what it did is not known"
ok tether repair --dry-run
out_has "operation $crashed (commit, "
out_has "never finished; done before it stopped: pin m, manifests; re-running the command finishes what is left"
# committing again lands the manifests the crashed commit wrote (its pin reused: only a VCS commit)
ok tether commit -m again
ok tether ops -n 1
out_matches "^[0-9a-f]{12}  $ts  commit   vcs [0-9a-f]{12}$"
