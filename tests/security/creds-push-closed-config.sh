#!/usr/bin/env bash
# A git object's repository is someone else's: its own .git/config names programs for the
# push (remote.<r>.receivepack / uploadpack, core.sshCommand, core.gitProxy, core.askPass,
# credential.helper, core.fsmonitor, hooks) and redirects URLs (url.<x>.insteadOf). The
# victim clones a dataset tracking it and commits, which pushes a pin: none of those programs
# runs, the pin lands in the remote the repository names (not where insteadOf points), and a
# push over ssh:// or git:// uses the user's own ssh and no proxy. The user's global config
# still applies (a global insteadOf is honoured).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

cat >"$TMP/payload.sh" <<SH
#!/bin/sh
touch "$TMP/PWNED-\$1"
exit 1
SH
chmod +x "$TMP/payload.sh"
pwned() { ls "$TMP" | grep '^PWNED-' || true; }
# A new commit in the object repository, made by the test (not tether) with the repository's
# fsmonitor switched off, as its owner would.
code_change() {
  printf '%s\n' "$1" >"$TMP/code/main.py"
  git -c core.fsmonitor= -C "$TMP/code" commit -qam "$1"
}

# The object repository with a hostile configuration, and the remotes it names.
new_code_repo "$TMP/code"
git init -q --bare "$TMP/origin.git"
git init -q --bare "$TMP/evil.git"
git -C "$TMP/code" remote add origin "$TMP/origin.git"
git -C "$TMP/code" remote add viassh "ssh://tether-test.invalid/x.git"
git -C "$TMP/code" remote add viagit "git://127.0.0.1:9/x.git"
for kv in "remote.origin.receivepack=$TMP/payload.sh receivepack" \
  "remote.origin.uploadpack=$TMP/payload.sh uploadpack" \
  "remote.viassh.receivepack=$TMP/payload.sh receivepack-ssh" \
  "core.sshCommand=$TMP/payload.sh sshcommand" \
  "core.gitProxy=$TMP/payload.sh gitproxy" \
  "core.askPass=$TMP/payload.sh askpass" \
  "credential.helper=!$TMP/payload.sh credential" \
  "core.fsmonitor=$TMP/payload.sh fsmonitor" \
  "url.$TMP/evil.git.insteadOf=$TMP/origin.git"; do
  git -C "$TMP/code" config "${kv%%=*}" "${kv#*=}"
done
printf '#!/bin/sh\ntouch "%s/PWNED-hook"\n' "$TMP" >"$TMP/code/.git/hooks/pre-push"
chmod +x "$TMP/code/.git/hooks/pre-push"

attacker_dataset
cd "$TMP/attacker"
ok tether add code "$TMP/code" --kind git --remote origin
git add -A && git commit -qm "track code"
victim_clone
outside=$(sha256sum "$TMP/code/.git/config"; fingerprint "$HOME")

ok tether commit -m "first pin"
tag=$(git -C "$TMP/code" tag -l 'tether.*')
[ -n "$tag" ] || fail "no pin tag in the object repository"
eq "$(pwned)" "" "payloads that ran"
eq "$(git -C "$TMP/origin.git" rev-parse "refs/tags/$tag")" "$(git -C "$TMP/code" rev-parse HEAD)" "the pin in origin"
eq "$(git -C "$TMP/evil.git" tag -l)" "" "tags where the repository's insteadOf points"
eq "$(sha256sum "$TMP/code/.git/config"; fingerprint "$HOME")" "$outside" "the object repository's config and HOME"

# ssh:// and git:// remotes: the push fails (no such host), and no payload runs for it.
for r in viassh viagit; do
  code_change "print(\"$r\")"
  sed -i "s|^remote = .*|remote = \"$r\"|" .tether/objects/code.toml
  fails 1 tether commit -m "via $r"
  err_has "was not pushed to $r"
  err_lines 1
  eq "$(pwned)" "" "payloads that ran pushing to $r"
  git checkout -q .tether/objects/code.toml
done

# The user's own configuration still applies: a global insteadOf sends the push to evil.git.
git config --global "url.$TMP/evil.git.insteadOf" "$TMP/origin.git"
code_change 'print("v3")'
ok tether commit -m "global config"
[ -n "$(git -C "$TMP/evil.git" tag -l 'tether.*')" ] || fail "the user's global insteadOf was not honoured"
eq "$(pwned)" "" "payloads that ran"
