#!/usr/bin/env bash
# Two git worktrees of one dataset are two tether workspaces: each works on its own bookmark,
# its first writable open forks its own store branch (tether.ws.<ds>.<bookmark>) in the
# tracked code repository, writes on the two branches stay apart, and each checkout's commit
# pins its own branch head. A bookmark a live workspace holds is refused to the other one
# (naming that workspace and --shared) and the refusal changes nothing.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
A="$DS"
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add code "$TMP/code" --kind git
ok tether commit -m first
pin0=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
sha0=$(git -C "$TMP/code" rev-parse HEAD)
base=$(git rev-parse HEAD)

# checkout B: a second worktree of the dataset repository; workspace.toml is untracked, so it
# starts as a fresh workspace on no bookmark, at the same manifests
git worktree add -q "$TMP/ds-b" -b side-b-base
B="$TMP/ds-b"
[ ! -e "$B/.tether/workspace.toml" ] || fail "the second worktree inherited a workspace.toml"
cd "$B"
ok tether status
out_has "on no bookmark: read-only (\`tether new -b NAME\` to write)"
out_matches '^ +clean  code  \[git/forkable\]$'

# A: bookmark alpha, lazy fork on the first writable open
cd "$A"
ok tether new -b alpha
out_has "on bookmark alpha; working refs set up"
out_has "  code -> tether.ws.$id.alpha  (created on first writable open)"
git -C "$TMP/code" show-ref --verify -q "refs/heads/tether.ws.$id.alpha" && fail "alpha branch forked before the open"
eq "$(git rev-parse --abbrev-ref HEAD)" "alpha" "A's git branch"
ok tether open code
eq "$OUT" "$TMP/code@$sha0" "A's handle"
ws_a=$(sed -nE 's/^workspace_id = "([0-9a-f]{32})"$/\1/p' .tether/workspace.toml)
[ -n "$ws_a" ] || fail "A has no workspace id"

# B: bookmark beta, its own branch
cd "$B"
ok tether new -b beta
out_has "on bookmark beta; working refs set up"
out_has "  code -> tether.ws.$id.beta  (created on first writable open)"
eq "$(git rev-parse --abbrev-ref HEAD)" "beta" "B's git branch"
eq "$(git rev-parse HEAD)" "$base" "beta starts at the committed dataset"
ok tether open code
eq "$OUT" "$TMP/code@$sha0" "B's handle"
ws_b=$(sed -nE 's/^workspace_id = "([0-9a-f]{32})"$/\1/p' .tether/workspace.toml)
[ -n "$ws_b" ] && [ "$ws_b" != "$ws_a" ] || fail "B's workspace id '$ws_b' is not its own (A: $ws_a)"

# both branches exist, distinct names, both at the pinned commit; main is untouched
eq "$(git -C "$TMP/code" for-each-ref --format='%(refname:short)' "refs/heads/tether.ws.$id.*")" \
  "$(printf 'tether.ws.%s.alpha\ntether.ws.%s.beta' "$id" "$id")" "working branches"
eq "$(git -C "$TMP/code" rev-parse "tether.ws.$id.alpha")" "$sha0" "alpha fork point"
eq "$(git -C "$TMP/code" rev-parse "tether.ws.$id.beta")" "$sha0" "beta fork point"
eq "$(git -C "$TMP/code" rev-parse "$pin0")" "$sha0" "the pin forked from"
eq "$(git -C "$TMP/code" rev-parse main)" "$sha0" "code main moved"

# writes on each branch, through a worktree of the code repository on it
git -C "$TMP/code" worktree add -q "$TMP/code-a" "tether.ws.$id.alpha"
sha_a=$(code_commit "$TMP/code-a" alpha.txt "written on alpha")
git -C "$TMP/code" worktree add -q "$TMP/code-b" "tether.ws.$id.beta"
sha_b=$(code_commit "$TMP/code-b" beta.txt "written on beta")

cd "$A"
ok tether status --snapshot
out_matches '^dataset [0-9a-f]{12}; on bookmark alpha$'
out_matches '^ +modified  code  \[git/forkable\]$'
ok tether commit -m "alpha work"
out_matches "^  pinned code -> tether\.$id\.[0-9a-f]{16}$"
pin_a=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
grep -qx "sha = \"$sha_a\"" .tether/objects/code.toml || fail "A's manifest does not pin alpha's head: $(cat .tether/objects/code.toml)"
eq "$(git rev-parse alpha)" "$(git rev-parse HEAD)" "bookmark alpha did not move with the commit"
eq "$(git -C "$TMP/code" rev-parse "$pin_a")" "$sha_a" "A's pin target"

cd "$B"
ok tether status --snapshot
out_matches '^dataset [0-9a-f]{12}; on bookmark beta$'
out_matches '^ +modified  code  \[git/forkable\]$'
ok tether commit -m "beta work"
pin_b=$(sed -nE 's/^  pinned code -> (.*)$/\1/p' <<<"$OUT")
[ -n "$pin_b" ] && [ "$pin_b" != "$pin_a" ] || fail "B's pin '$pin_b' is not its own (A: $pin_a)"
grep -qx "sha = \"$sha_b\"" .tether/objects/code.toml || fail "B's manifest does not pin beta's head: $(cat .tether/objects/code.toml)"
eq "$(git rev-parse beta)" "$(git rev-parse HEAD)" "bookmark beta did not move with the commit"
eq "$(git -C "$TMP/code" rev-parse "$pin_b")" "$sha_b" "B's pin target"

# the forks stay disjoint: each branch holds its own write only, both grow from the pin
eq "$(git -C "$TMP/code" rev-parse "tether.ws.$id.alpha")" "$sha_a" "alpha head"
eq "$(git -C "$TMP/code" rev-parse "tether.ws.$id.beta")" "$sha_b" "beta head"
eq "$(git -C "$TMP/code" merge-base "$sha_a" "$sha_b")" "$sha0" "merge base of the forks"
eq "$(git -C "$TMP/code" ls-tree --name-only "$sha_a" | sort | tr '\n' ' ')" "alpha.txt main.py " "alpha's files"
eq "$(git -C "$TMP/code" ls-tree --name-only "$sha_b" | sort | tr '\n' ' ')" "beta.txt main.py " "beta's files"
# and the dataset commits too: alpha and beta both grow from the first commit
eq "$(git merge-base alpha beta)" "$base" "merge base of the bookmarks"
grep -qx "sha = \"$sha_a\"" <(git show alpha:.tether/objects/code.toml) || fail "alpha's commit lost its pin"
grep -qx "sha = \"$sha_b\"" <(git show beta:.tether/objects/code.toml) || fail "beta's commit lost its pin"
cd "$A"
ok tether status
out_matches '^ +clean  code  \[git/forkable\]$'
cd "$B"
ok tether status
out_matches '^ +clean  code  \[git/forkable\]$'

# B may not join alpha while live workspace A holds it; nothing changes
IGNORE_OPLOG=1 remember_state
refs_before=$(git -C "$TMP/code" for-each-ref --format='%(refname) %(objectname)')
bookmarks_before=$(git for-each-ref --format='%(refname) %(objectname)' refs/heads)
fails 1 tether new alpha
err_lines 1
eq "$ERR" "error: bookmark 'alpha' is held by live workspace(s) ${ws_a:0:8}; pass --shared to write the same store branches from here too"
IGNORE_OPLOG=1 unchanged "refused new"
eq "$(git rev-parse --abbrev-ref HEAD)" "beta" "B left beta"
eq "$(git -C "$TMP/code" for-each-ref --format='%(refname) %(objectname)')" "$refs_before" "code refs after a refused new"
eq "$(git for-each-ref --format='%(refname) %(objectname)' refs/heads)" "$bookmarks_before" "bookmarks after a refused new"
ok tether status
out_matches '^dataset [0-9a-f]{12}; on bookmark beta$'
# the dry run shows the same refusal as its plan
ok tether new alpha --dry-run
out_has "bookmark 'alpha' is held by live workspace(s) ${ws_a:0:8}"
