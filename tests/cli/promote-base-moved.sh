#!/usr/bin/env bash
# Promote when the base branch moved since the fork: `--strategy ff` refuses and moves
# nothing; the default strategy merges natively (git: a merge commit on main), resets the
# fork onto the merge result, and asks for a commit; the commit pins the merge and the next
# promote lands the bookmark (the trunk moves). A conflicting merge is refused, naming the
# file, and leaves main where it was.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.feature"
ok tether add code "$TMP/code" --kind git
ok tether commit -m baseline
v1=$(git -C "$TMP/code" rev-parse main)

ok tether new -b feature
ok tether open code
git -C "$TMP/code" worktree add -q "$TMP/code-feature" "$fork"
f1=$(code_commit "$TMP/code-feature" feature.py 'print("feature")')
# done writing: a branch checked out in a worktree is never moved (the fork reset below)
git -C "$TMP/code" worktree remove "$TMP/code-feature"
ok tether commit -m "feature work"
bookmark_commit=$(git rev-parse HEAD)

# someone else lands work on the code's main meanwhile
m2=$(code_commit "$TMP/code" other.py 'print("other")')

# ff only: refused, nothing moves
remember_state
fails 1 tether promote --strategy ff
out_matches "^  refused        code: main moved since the fork \(dirty=False sha=${v1:0:16}… -> dirty=False sha=${m2:0:16}…\) and strategy=ff$"
out_lacks "main ->"
eq "$(git -C "$TMP/code" rev-parse main)" "$m2" "main of the code repository"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$f1" "the fork"
unchanged "a refused promote"

# the default strategy merges
ok tether promote --dry-run
out_matches "^ +merge  code  \[git\] main  merge $fork into main \(base moved since fork\)$"
ok tether promote
out_matches "^  merged         code -> \{'dirty': False, 'sha': '[0-9a-f]{40}'\}$"
out_has 'run `tether commit` to pin the merge result(s), then promote again'
out_lacks "main ->"
merged=$(git -C "$TMP/code" rev-parse main)
[ "$(git -C "$TMP/code" rev-list --parents -n1 main | wc -w)" -eq 3 ] || fail "main is not a merge commit"
git -C "$TMP/code" merge-base --is-ancestor "$m2" main || fail "the merge dropped main's work"
git -C "$TMP/code" merge-base --is-ancestor "$f1" main || fail "the merge dropped the feature"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$merged" "the fork restarts from the merge result"
eq "$(git rev-parse main)" "$(git rev-parse "$bookmark_commit~1")" "the trunk moved after a merge"

# commit pins the merge; promote again lands the bookmark
ok tether commit -m "pin the merge"
out_matches "^  pinned code -> tether\.$ds\."
ok tether promote
out_matches "^  skipped        code$"
out_has "main -> $(git rev-parse HEAD | cut -c1-12)"
eq "$(git rev-parse main)" "$(git rev-parse HEAD)" "the trunk"

# a conflicting merge: both sides change the same line
ok tether new -b clash
ok tether open code
fork2="tether.ws.$ds.clash"
git -C "$TMP/code" worktree add -q "$TMP/code-clash" "$fork2"
code_commit "$TMP/code-clash" main.py 'print("ours")' >/dev/null
ok tether commit -m "clash work"
theirs=$(code_commit "$TMP/code" main.py 'print("theirs")')
fails 1 tether promote
out_matches '^  refused        code: '
out_has '                   conflict: main.py'
eq "$(git -C "$TMP/code" rev-parse main)" "$theirs" "a conflicting merge moved main"
[ -z "$(git -C "$TMP/code" status --porcelain)" ] || fail "the conflict left files behind: $(git -C "$TMP/code" status --porcelain)"
fails 1 tether promote --json
eq "$(json 'j["conflicts"]["code"]')" "['main.py']"
eq "$(json 'j["trunk_moved"]')" None
