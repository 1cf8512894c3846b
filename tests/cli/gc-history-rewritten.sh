#!/usr/bin/env bash
# Dataset commits rewritten with git alone, behind tether's back: a `git reset --hard` that
# loses the last commit shows in `tether ops` as `(vcs commit gone)` and `status` warns; gc
# then releases exactly the lost commit's pin. A `git commit --amend` that keeps the manifests
# drops a commit too, but its pin is still named by the amended commit: gc keeps it.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$TMP/code" tag -l 'tether.*' | sort; }
pinned() { json "j['pinned']['$1']"; }
last_commit_op() { python3 -c 'import json,sys; print([e["id"] for e in map(json.loads, open(sys.argv[1])) if e.get("command") == "commit"][-1])' .tether/ops.jsonl; }
new_code_repo "$TMP/code"
new_dataset
ok tether add code ../code --kind git
ok tether commit -m A --json
tagA=$(pinned code)
code_commit "$TMP/code" main.py 'print("B")' >/dev/null
ok tether commit -m B --json
tagB=$(pinned code)
dsB=$(json 'j["vcs_commit"]')
opB=$(last_commit_op)
code_commit "$TMP/code" main.py 'print("C")' >/dev/null
ok tether commit -m C --json
tagC=$(pinned code)
dsC=$(json 'j["vcs_commit"]')
opC=$(last_commit_op)
ok tether gc
eq "$OUT" "  gc: nothing to do"

# C disappears from git
git reset -q --hard HEAD~1
ok tether ops
out_matches "^$opC  .*  commit   pinned code; vcs ${dsC:0:12}  \(vcs commit gone\)$"
out_matches "^$opB  .*  commit   pinned code; vcs ${dsB:0:12}$"
ok tether status
err_has "warning: dataset commit ${dsC:0:12} (op $opC) is no longer in VCS history"
err_has "its pins for code are unreferenced"
ok tether gc
out_has "plan: gc (1 write(s))"
out_has "$tagC"
eq "$(tags)" "$(printf '%s\n' "$tagA" "$tagB" "$tagC" | sort)" "tags after the dry run"
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagC#tether.}"
eq "$(grep -c '^  git: ' <<<"$OUT")" "1" "released pins"
eq "$(tags)" "$(printf '%s\n' "$tagA" "$tagB" | sort)" "tags after gc"
ok tether verify --all-history
out_lacks "missing"

# B reworded with --amend: the old commit is gone from git, its manifests are not
git commit -q --amend -m "B reworded"
[ "$(git rev-parse HEAD)" != "$dsB" ] || fail "the amend kept the commit id"
ok tether ops
out_matches "^$opB  .*  commit   pinned code; vcs ${dsB:0:12}  \(vcs commit gone\)$"
ok tether status
err_has "warning: dataset commit ${dsB:0:12} (op $opB) is no longer in VCS history"
ok tether gc
eq "$OUT" "  gc: nothing to do"
ok tether gc --no-dry-run
out_has "unpinned 0 pin(s)"
eq "$(tags)" "$(printf '%s\n' "$tagA" "$tagB" | sort)" "tags after the amend's gc"
ok tether verify --all-history
out_lacks "missing"

# an amend that changes the manifests: the amended-away state's pin goes
code_commit "$TMP/code" main.py 'print("D")' >/dev/null
ok tether commit -m D --json
tagD=$(pinned code)
git show HEAD~1:.tether/objects/code.toml >.tether/objects/code.toml
git commit -q --amend -a --allow-empty -m "D undone by hand"
ok tether gc --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagD#tether.}"
eq "$(tags)" "$(printf '%s\n' "$tagA" "$tagB" | sort)" "tags after the second amend's gc"
