#!/usr/bin/env bash
# A commit killed after it cut the pin and wrote the manifests but before the VCS commit
# landed (a pre-commit hook in the dataset repository SIGKILLs tether): the op log keeps the
# `commit` entry `started` with no done mark and a `pin` progress line, the pin is in the
# store, HEAD has not moved and the working tree's manifest records the new state. Without
# the hook, the next commit lands those manifests (reusing the pin) and verify is ok.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add code "$TMP/code" --kind git
ok tether commit -m first
pin1=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
[ -n "$pin1" ] || fail "no first pin"
sha2=$(code_commit "$TMP/code" main.py 'print("v2")')
head_before=$(git rev-parse HEAD)
ops_before=$(wc -l <.tether/ops.jsonl)

kill_tether_at_git_commit
# through sh, so the shell's "Killed" notice lands in ERR rather than the test log
run sh -c '"$1" commit -m crash' sh "$TETHER"
[ "$RC" -eq 137 ] || fail "expected tether to die by SIGKILL (exit 137), got $RC"
eq "$(git rev-parse HEAD)" "$head_before" "HEAD moved although the VCS commit never ran"
[ "$(git rev-list --count HEAD)" -eq 2 ] || fail "a dataset commit landed"

# the op log: a started commit with no done mark, that recorded its pin and its manifests
python3 - "$ops_before" "$sha2" <<'PY' || fail "op log: $(tail -n +"$((ops_before + 1))" .tether/ops.jsonl)"
import json, sys
skip = int(sys.argv[1])
lines = [json.loads(l) for l in open(".tether/ops.jsonl").read().splitlines()[skip:] if l.strip()]
entries = [l for l in lines if "id" in l and "command" in l]
assert len(entries) == 1, entries
e = entries[0]
assert e["command"] == "commit" and e["status"] == "started", e
op = e["id"]
assert not [l for l in lines if l.get("done") == op], "the crashed commit has a done mark"
progress = [l for l in lines if l.get("progress") == op]
actions = [p["action"] for p in progress]
assert actions == ["pin", "manifests"], actions
pin = progress[0]
assert pin["key"] == "code" and pin["created"] is True, pin
assert e["pre"]["vcs"]["commit"], e["pre"]
open(".crash-pin", "w").write(pin["ref"])
PY
pin2=$(cat .crash-pin) && rm .crash-pin
[[ "$pin2" =~ ^tether\.$id\.[0-9a-f]{16}$ ]] || fail "odd pin ref in the op log: $pin2"
[ "$pin2" != "$pin1" ] || fail "the crashed commit logged the first commit's pin"

# the pin exists in the store, at the new commit
eq "$(git -C "$TMP/code" cat-file -t "refs/tags/$pin2")" "commit" "crash pin type"
eq "$(git -C "$TMP/code" rev-parse "$pin2")" "$sha2" "crash pin target"
# no data lost: the working tree's manifest records the new state and that pin
grep -qx "sha = \"$sha2\"" .tether/objects/code.toml || fail "manifest lost the new state: $(cat .tether/objects/code.toml)"
grep -qx "ref = \"$pin2\"" .tether/objects/code.toml || fail "manifest lost the new pin: $(cat .tether/objects/code.toml)"
git diff --quiet HEAD -- .tether/objects/code.toml && fail "the new manifest is not an uncommitted change"
ok tether status --snapshot
out_matches '^ +clean  code  \[git/forkable\]$'

# without the hook, the next commit lands the manifests: the pin is reused, not cut again
rm .git/hooks/pre-commit
tags_before=$(git -C "$TMP/code" tag -l | sort)
ok tether commit -m again
out_matches '^committed [0-9a-f]{12}$'
[ "$(git rev-parse HEAD)" != "$head_before" ] || fail "HEAD did not move"
eq "$(git log -1 --format=%s)" "again" "commit message"
eq "$(git rev-parse HEAD~1)" "$head_before" "the new commit's parent"
grep -qx "sha = \"$sha2\"" <(git show HEAD:.tether/objects/code.toml) || fail "committed manifest lacks the new state"
grep -qx "ref = \"$pin2\"" <(git show HEAD:.tether/objects/code.toml) || fail "committed manifest lacks the crash pin"
eq "$(git -C "$TMP/code" tag -l | sort)" "$tags_before" "tags after the recommit"
eq "$(git status --porcelain -- .tether tether.toml)" "" "dataset files left uncommitted"
ok tether commit -m "once more"
out_has "nothing to commit"
ok tether verify
out_matches '^ +ok  code$'
ok tether verify -r HEAD~1
out_matches '^ +ok  code$'
