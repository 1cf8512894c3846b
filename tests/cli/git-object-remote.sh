#!/usr/bin/env bash
# A git object with a `remote`: each pin is pushed there through the git command; when the
# push fails the commit fails, the local tag is removed and the dataset is unchanged.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
git init -q --bare "$TMP/origin.git"
git -C "$TMP/code" remote add origin "$TMP/origin.git"
new_dataset
ok tether add code "$TMP/code" --kind git --remote origin
ok tether commit -m first --json
tag1=$(json 'j["pinned"]["code"]')
eq "$(git -C "$TMP/origin.git" rev-parse "refs/tags/$tag1")" "$(git -C "$TMP/code" rev-parse HEAD)" "pushed tag"

# the remote goes away: the next pin cannot be pushed
mv "$TMP/origin.git" "$TMP/origin-moved.git"
code_commit "$TMP/code" main.py 'print("v2")' >/dev/null
IGNORE_OPLOG=1 remember_state
fails 1 tether commit -m second
err_has "was not pushed to origin"
IGNORE_OPLOG=1 unchanged
eq "$(git -C "$TMP/code" tag -l 'tether.*')" "$tag1" "local tags after a failed push"

# back in place: the commit goes through
mv "$TMP/origin-moved.git" "$TMP/origin.git"
ok tether commit -m second --json
tag2=$(json 'j["pinned"]["code"]')
eq "$(git -C "$TMP/origin.git" tag -l 'tether.*' | sort)" "$(printf '%s\n' "$tag1" "$tag2" | sort)" "remote tags"
