#!/usr/bin/env bash
# The relabel story of the user guide, on real repositories: commit a baseline of a raw-data
# directory and an analysis repository, `new -b relabel`, open the code writable (the fork
# branch appears in the code repository only then), write to it, commit on the bookmark,
# `diff main @ --content`, promote (a fast-forward of the code's main), and the trunk moves:
# `new main` is clean with the relabelled state.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$ds.relabel"
mkdir data && echo "a,1" >data/plate1.csv
ok tether add raw data --kind file --file versioned
ok tether add code "$TMP/code" --kind git
ok tether commit -m baseline
baseline=$(git rev-parse HEAD)
pin1=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
v1=$(git -C "$TMP/code" rev-parse main)

# new: a bookmark, and a decided (not yet created) working branch
ok tether new -b relabel
out_has "on bookmark relabel; working refs set up"
out_has "  code -> $fork  (created on first writable open)"
eq "$(git symbolic-ref --short HEAD)" relabel "the dataset's checked-out branch"
[ -z "$(git -C "$TMP/code" branch --list "$fork")" ] || fail "the fork exists before the first writable open"
grep -q "^code = \"$fork\"" .tether/workspace.toml || fail "no pending fork recorded: $(cat .tether/workspace.toml)"

# a read-only open reads the pin, a writable one creates the branch there
ok tether open code --read-only --json
eq "$(json 'j["read_only"]')" True
eq "$(json 'j["address"]')" "$TMP/code@$v1"
ok tether open code
eq "$OUT" "$TMP/code@$v1" "the writable handle"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$v1" "the fork starts at the pinned commit"
grep -q '"command":"fork"' .tether/ops.jsonl || fail "the lazy fork is not in the op log"
ok tether open code --json
eq "$(json 'j["read_only"]')" False
eq "$(json 'j["type"]')" GitHandle

# write through the fork (a worktree of the code repository), and to the raw data
git -C "$TMP/code" worktree add -q "$TMP/code-relabel" "$fork"
v2=$(code_commit "$TMP/code-relabel" main.py 'print("relabelled")')
echo "b,2" >data/plate2.csv
ok tether status --snapshot
out_matches '^ +modified  code  \[git/forkable\]$'
out_matches '^ +modified  raw  \[file/observed\]'
eq "$(git -C "$TMP/code" rev-parse main)" "$v1" "main of the code repository moved"

ok tether commit -m "Relabel plate1"
out_matches "^  pinned code -> tether\.$ds\.[0-9a-f]{16}$"
pin2=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
[ "$pin2" != "$pin1" ] || fail "the relabelled state got the baseline's pin"
eq "$(git -C "$TMP/code" rev-parse "$pin2")" "$v2" "the new pin is at the fork's head"
eq "$(git rev-parse main)" "$baseline" "the trunk moved before promote"
relabel_commit=$(git rev-parse HEAD)
eq "$(git rev-parse relabel)" "$relabel_commit" "the bookmark moved with the commit"

ok tether diff main @ --content
out_matches '^ +changed  code'
out_matches 'modified  main\.py  \+1 -1'
out_matches '^ +changed  raw'
out_matches 'added  plate2\.csv'

# promote: main of the code repository fast-forwards, then the trunk follows
ok tether promote --dry-run
out_matches '^plan: promote \(1 write\(s\)\)$'
out_matches "^ +fast-forward  code  \[git\] main  main .* \(base unchanged since fork\)$"
eq "$(git -C "$TMP/code" rev-parse main)" "$v1" "a dry run moved main"
ok tether promote
out_matches "^  fast-forwarded code -> \{'dirty': False, 'sha': '$v2'\}$"
out_matches '^  skipped        raw$'
out_has "main -> ${relabel_commit:0:12}"
eq "$(git -C "$TMP/code" rev-parse main)" "$v2" "main of the code repository"
eq "$(git rev-parse main)" "$relabel_commit" "the trunk"
grep -q '"command":"promote"' .tether/ops.jsonl || fail "promote is not in the op log"

# leaving the bookmark behind tether's back: status warns, commit refuses
git switch -q main
ok tether status
err_has "warning: the working copy has left bookmark 'relabel' (now on 'main'); \`tether new relabel\` returns to it, \`tether new\` works where you are"
fails 1 tether commit -m "on the wrong branch"
err_has "the working copy is not on bookmark 'relabel' (it moved to 'main'); run \`tether new relabel\` to return, or \`tether new\` to work where you are"

# back on the trunk: clean, the code at the relabelled commit
ok tether new main
out_has "on trunk bookmark main; working refs set up"
out_has "  code -> main"
eq "$(git symbolic-ref --short HEAD)" main
ok tether status --snapshot
out_matches '^ +clean  code  \[git/forkable\]$'
out_matches '^ +clean  raw  \[file/observed\]'
ok tether verify
ok tether open code --read-only
eq "$OUT" "$TMP/code@$v2"
