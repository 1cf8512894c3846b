#!/usr/bin/env bash
# `tether repair` recreates what the manifests promise and the stores lost: a git object's pin
# tag deleted by hand (verify: missing) is cut again at the recorded commit, and a working
# branch deleted by hand is forked again from the manifest. --dry-run and --plan change
# nothing; a saved plan whose branch reappeared is stale.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
new_dataset
ds=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
ok tether add code "$TMP/code" --kind git
ok tether commit -m first --json
pin=$(json 'j["pinned"]["code"]')
sha=$(git -C "$TMP/code" rev-parse main)
ok tether repair --dry-run
out_has "  repair: nothing to do"
out_has "nothing to repair"

git -C "$TMP/code" tag -d "$pin" >/dev/null
fails 1 tether verify
out_matches "^ +missing  code"
remember_state
ok tether repair --dry-run
out_has "plan: repair (1 write(s))"
out_matches "^ +repin  code  \[git\] $pin  pin missing \(.*\); recreate at .*sha=${sha:0:16}"
unchanged "repair --dry-run"
git -C "$TMP/code" rev-parse -q --verify "refs/tags/$pin" >/dev/null && fail "a dry run recreated the tag"
ok tether repair
out_has "repinned  code -> $pin"
eq "$(git -C "$TMP/code" rev-parse "$pin^{commit}")" "$sha" "the recreated tag"
ok tether verify
out_matches '^ +ok  code$'
ok tether ops -n 1
out_matches "^[0-9a-f]{12}  .*  repair   repinned 1, reforked 0$"
ok tether repair
out_has "note      nothing to repair"

# a working branch deleted in the store
fork="tether.ws.$ds.work"
ok tether new -b work --eager
git -C "$TMP/code" rev-parse -q --verify "refs/heads/$fork" >/dev/null || fail "no fork"
git -C "$TMP/code" branch -q -D "$fork"
ok tether repair --dry-run
out_matches "^ +refork  code  \[git\] $fork  working branch missing; recreate from the manifest \(pin $pin\)$"
ok tether repair --json
eq "$(json 'j["reforked"]')" "{'code': '$fork'}"
eq "$(json 'j["failed"]')" "{}"
eq "$(git -C "$TMP/code" rev-parse "$fork")" "$sha" "the reforked branch"

# a saved plan whose branch came back is stale
git -C "$TMP/code" branch -q -D "$fork"
ok tether repair --plan "$TMP/repair.json"
err_has "plan written to $TMP/repair.json"
git -C "$TMP/code" branch -q "$fork" "$sha"
fails 1 tether repair --from-plan "$TMP/repair.json"
err_has "error: $fork exists again since the plan was made; re-run the plan"
git -C "$TMP/code" branch -q -D "$fork"
ok tether repair --from-plan "$TMP/repair.json"
out_has "reforked  code -> $fork"
fails 1 tether repair --from-plan "$TMP/repair.json" --dry-run
err_has "cannot be combined"
