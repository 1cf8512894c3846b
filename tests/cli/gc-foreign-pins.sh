#!/usr/bin/env bash
# gc releases only pins this clone created (the pinned index in the git common dir, or the op
# log, says which). With both gone, an unreferenced pin of this dataset is foreign: the plan
# keeps it (`keep-pin`), the applied gc reports it kept, and --release-foreign releases it.
. "$(dirname "$0")/lib.sh"
tags() { git -C "$TMP/code" tag -l 'tether.*' | sort; }
pinned() { json "j['pinned']['$1']"; }
new_code_repo "$TMP/code"
new_dataset
ok tether add code ../code --kind git
ok tether commit -m A
code_commit "$TMP/code" main.py 'print("B")' >/dev/null
ok tether commit -m B --json
tagB=$(pinned code)
code_commit "$TMP/code" main.py 'print("C")' >/dev/null
ok tether commit -m C
ok tether abandon HEAD~1
all_tags=$(tags)
index="$(git rev-parse --path-format=absolute --git-common-dir)/tether-pinned.jsonl"
[ -f "$index" ] || fail "no pinned index at $index"
grep -qF "${tagB#tether.}" "$index" || fail "the index does not name B's pin: $(cat "$index")"
[ -f .tether/ops.jsonl ] || fail "no op log"

# the op log alone still says this clone created it
rm "$index"
ok tether gc
out_matches "^ +unpin  code  \[git\] $tagB  no manifest in history references it$"

# neither: kept
rm .tether/ops.jsonl
ok tether gc
out_matches "^ +keep-pin  code  \[git\] $tagB  no manifest in history references it; not created by this clone -- another clone's commits may name it \(fetch them, or --release-foreign\)$"
out_lacks " unpin "
ok tether gc --no-dry-run
out_has "unpinned 0 pin(s)"
out_has "kept 1 unreferenced pin(s) this clone did not create (--release-foreign releases)"
out_has "  git: ${tagB#tether.}"
eq "$(tags)" "$all_tags" "tags after gc"
ok tether gc --no-dry-run --json
eq "$(json 'j["kept_pins"]')" "{'git': ['${tagB#tether.}']}"
eq "$(json 'j["unpinned"]')" "{}"

ok tether gc --release-foreign
out_matches "^ +unpin  code  \[git\] $tagB  no manifest in history references it; not created by this clone$"
eq "$(tags)" "$all_tags" "tags after the --release-foreign dry run"
ok tether gc --release-foreign --no-dry-run
out_has "unpinned 1 pin(s)"
out_has "  git: ${tagB#tether.}"
out_lacks "kept "
eq "$(tags)" "$(grep -vx "$tagB" <<<"$all_tags")" "tags after --release-foreign"
ok tether verify --all-history
out_lacks "missing"
ok tether gc
eq "$OUT" "  gc: nothing to do"
