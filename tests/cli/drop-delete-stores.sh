#!/usr/bin/env bash
# `add --create` on a bookmark other than the trunk forks the new store's branch for the
# bookmark at once; `drop --delete-stores` then takes the stores made on the bookmark with
# it: their branches and pins first, then the stores, checked empty again before each goes.
# A store made on the trunk, named by the trunk's commits, stays; so does every store when
# the flag is not given.
. "$(dirname "$0")/lib.sh"
need_icechunk
new_dataset
id=$(sed -nE 's/^id = "([0-9a-f]{8})"$/\1/p' tether.toml)
fork="tether.ws.$id.try"
ok tether add base ../base.git --kind git --create
ok tether commit -m baseline

ok tether new -b try
ok tether add code ../code.git --kind git --create
out_has "added code (git, created)"
out_has "  code -> $fork (this bookmark's branch)"
ok tether add arrays ../arrays.icechunk --kind icechunk --create --json
eq "$(json 'j["fork"]')" "$fork"
grep -qx "arrays = \"$fork\"" .tether/workspace.toml || fail "the fork is not this checkout's working ref"
git -C "$TMP/code.git" rev-parse -q --verify "refs/heads/$fork" >/dev/null || fail "no branch in the created repository"
eq "$(icechunk refs "$TMP/arrays.icechunk" | python3 -c "import json,sys; print('$fork' in json.load(sys.stdin)['branches'])")" True \
   "real Icechunk lists the bookmark's branch"
ok tether commit -m "on try" --json
pin_code=$(json 'j["pinned"]["code"]')

ok tether new main
# Without --delete-stores the stores stay (only their branches and pins are planned).
ok tether drop try
out_lacks "delete-store"

remember_state
ok tether drop try --delete-stores
err_has "note: reclaiming created stores is experimental: \`delete-store\` has no \`repair\`; read the plan"
out_matches "^ +delete-branch  code +\[git\] $fork  in store $TMP/code.git, which is deleted$"
out_matches "^ +unpin  code +\[git\] $pin_code  in store $TMP/code.git, which is deleted$"
out_matches "^ +delete-store  code +\[git\] $TMP/code.git  made by \`add --create\` on try; no manifest names it and nothing else is in it$"
out_matches "^ +delete-store  arrays +\[icechunk\] $TMP/arrays.icechunk  made by \`add --create\` on try; "
out_lacks "base.git"
unchanged "drop --delete-stores is a dry run"

ok tether drop try --delete-stores --no-dry-run --json
eq "$(json 'sorted(j["gc"]["deleted_stores"].items())')" "[('arrays', '$TMP/arrays.icechunk'), ('code', '$TMP/code.git')]"
[ ! -e "$TMP/code.git" ] && [ ! -e "$TMP/arrays.icechunk" ] || fail "a store made on try is still there"
[ -d "$TMP/base.git" ] || fail "the trunk's store was deleted"
git rev-parse -q --verify try >/dev/null && fail "the bookmark is still there"
ok tether status
