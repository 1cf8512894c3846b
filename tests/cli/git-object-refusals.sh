#!/usr/bin/env bash
# Locators the git backend refuses at add, each with one error line naming the object and
# what to do, and nothing written: a repository inside the dataset, a directory that is not a
# repository, a bare repository without a branch, an unknown ref, a remote that does not
# exist, option-like values.
. "$(dirname "$0")/lib.sh"
new_code_repo "$TMP/code"
git init -q --bare "$TMP/bare.git"
git -C "$TMP/code" push -q "$TMP/bare.git" main
mkdir -p "$TMP/plain"
new_dataset
new_code_repo "$DS/vendored"

remember_state
refused() {
  fails 1 tether add "$@"
  err_lines 1
  unchanged "tether add $*"
}
refused inner vendored --kind git
err_matches "^error: \[inner\] git path $DS/vendored is inside this dataset's checkout"
refused plain "$TMP/plain" --kind git
err_matches "^error: \[plain\] $TMP/plain is not a git repository"
refused bare "$TMP/bare.git" --kind git
err_matches "^error: \[bare\] $TMP/bare.git is a bare repository: .*--branch"
refused code "$TMP/code" --kind git --branch no-such-branch
err_matches "^error: \[code\] unknown revision 'no-such-branch' in $TMP/code$"
refused code "$TMP/code" --kind git --at deadbeef
err_matches "^error: \[code\] unknown revision 'deadbeef' in $TMP/code$"
refused code "$TMP/code" --kind git --remote upstream
err_matches "^error: \[code\] 'upstream' is not a remote configured in $TMP/code\. .*secrets\.toml"
refused code "$TMP/code" --kind git --branch=--orphan
err_matches "^error: \[code\] git ref '--orphan' looks like an option; refused$"
refused gone "$TMP/nowhere" --kind git
err_matches "^error: .*$TMP/nowhere does not exist"

# the same repository, named properly, is accepted; a bare one with its branch too
ok tether add bare "$TMP/bare.git" --kind git --branch main
ok tether add code "$TMP/code" --kind git
ok tether commit -m both
eq "$(git -C "$TMP/bare.git" tag -l 'tether.*' | wc -l)" "1" "tags in the bare repository"

# a manifest edited by hand to point inside the checkout is refused at use, too
sed -i "s|^uri = .*|uri = \"$DS/vendored\"|" .tether/objects/code.toml
fails 1 tether status --snapshot
err_matches "^error: \[code\] git path $DS/vendored is inside this dataset's checkout"
