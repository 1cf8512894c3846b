#!/usr/bin/env bash
# A first commit that the VCS refuses leaves no listing (nor an empty listings directory)
# behind, and a later commit of objects without listings goes through.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add raw "$TMP/d" --kind file --file versioned
printf '#!/bin/sh\nexit 1\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
head0=$(git rev-parse HEAD)
fails 1 tether commit -m one
eq "$(git rev-parse HEAD)" "$head0" "HEAD moved"
[ ! -e .tether/listings ] || fail "listings left behind: $(ls -A .tether/listings)"
! grep -q '^\[state\]' .tether/objects/raw.toml || fail "manifest not restored"
rm .git/hooks/pre-commit
ok tether remove raw
ok tether add m sys1 --kind memory
ok tether commit -m two
out_matches '^committed [0-9a-f]{12}$'
git ls-files --error-unmatch .tether/objects/m.toml >/dev/null || fail "manifest not committed"
