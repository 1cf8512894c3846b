#!/usr/bin/env bash
# A clone must not choose the git executable or a credential-receiving endpoint through
# secrets.toml. The attacker commits `.tether` as a symlink to a tracked directory `meta/`
# holding a force-added secrets.toml with `[vcs] git_path` pointing at a payload script and
# `[backends.neon] api_url` pointing at a listener, plus a Neon object; a second variant
# force-adds secrets.toml into a real `.tether`. The victim's status, status --snapshot,
# new main, new -b x and commit each get a one-line refusal; the payload never runs, the
# listener is never contacted, nothing outside the dataset changes.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/outside"
echo "do not touch" >"$TMP/outside/precious"
OUTSIDE_BEFORE=$(fingerprint "$TMP/outside")

# A TCP listener standing in for the attacker's server: any connection leaves a mark.
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); open(sys.argv[1], "a").write("contacted\n"); c.close()
' "$TMP/contacted" >"$TMP/port" &
listener=$!
trap 'kill "$listener" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
[ -n "$PORT" ] || fail "the listener did not start"

# payload DIR: the attacker's files in DIR: secrets.toml, run.sh and a Neon object.
payload() {
  mkdir -p "$1/objects"
  cat >"$1/run.sh" <<SH
#!/bin/sh
echo ran >>"$TMP/pwned"
exec git "\$@"
SH
  chmod +x "$1/run.sh"
  cat >"$1/secrets.toml" <<TOML
[vcs]
git_path = "./.tether/run.sh"
[backends.neon]
api_url = "http://127.0.0.1:$PORT"
TOML
  cat >"$1/objects/db.toml" <<'TOML'
key = "db"
kind = "neon"
recoverable = true

[locator]
project_id = "p1"
database = "neondb"
role = "alice"

[policy]
file = "immutable"
pin = "native"
TOML
}

# victim_runs EXPECTED: every command the victim might run is refused with one line
# matching EXPECTED, and nothing ran, was contacted or changed outside.
victim_runs() {
  export NEON_API_KEY=victims-neon-key
  for cmd in "status" "status --snapshot" "new main" "new -b x" "commit -m y"; do
    # shellcheck disable=SC2086
    fails 1 tether $cmd
    err_lines 1
    err_matches "$1"
    [ ! -e "$TMP/pwned" ] || fail "the payload ran on: tether $cmd"
    [ ! -e "$TMP/contacted" ] || fail "the clone's api_url was contacted on: tether $cmd"
  done
  [ "$(fingerprint "$TMP/outside")" == "$OUTSIDE_BEFORE" ] || fail "a file outside the dataset changed"
}

# 1. `.tether` is a symlink to the tracked meta/.
attacker_dataset
cd "$TMP/attacker"
mkdir meta
mv .tether/.gitignore .tether/objects meta/ 2>/dev/null || true
rm -rf .tether
payload meta
ln -s meta .tether
git add -f meta .tether tether.toml
git commit -q -m "innocent-looking dataset"
victim_clone
[ -L .tether ] || fail "the clone has no .tether symlink"
victim_runs '^error: \.tether is a symlink \(to meta\); .*: remove the symlink from the repository$'

# 2. A real .tether with secrets.toml force-added: refused as tracked, before git_path runs.
cd "$TMP"
rm -rf "$TMP/attacker" "$TMP/victim"
attacker_dataset
cd "$TMP/attacker"
payload .tether
git add -f .tether/secrets.toml .tether/run.sh .tether/objects tether.toml
git commit -q -m "dataset with its own secrets"
victim_clone
victim_runs '^error: \.tether/secrets\.toml is tracked by git; .*`git rm -r --cached \.tether/secrets\.toml`$'

# The way out works: untrack and remove the clone's secrets (and its Neon object, whose
# API this test cannot reach), and tether runs.
git rm -q --cached .tether/secrets.toml
rm .tether/secrets.toml
git rm -q .tether/objects/db.toml
ok tether status
[ ! -e "$TMP/pwned" ] || fail "the payload ran after the way out"

# 3. No dataset yet, only a force-added .tether/secrets.toml: `tether init` (which switches
# branches with git_path) refuses it before running anything.
cd "$TMP"
rm -rf "$TMP/attacker" "$TMP/victim"
mkdir -p "$TMP/attacker"
cd "$TMP/attacker"
git init -q -b main
payload .tether
rm -r .tether/objects
git add -f .tether/secrets.toml .tether/run.sh
git commit -q -m "a repository with its own secrets"
victim_clone
# On a detached HEAD without a trunk branch, init makes the branch: a git write, with git_path.
git checkout -q --detach
git branch -q -D main
fails 1 tether init
err_lines 1
err_matches '^error: \.tether/secrets\.toml is tracked by git; '
[ ! -e "$TMP/pwned" ] || fail "the payload ran on: tether init"
[ ! -e tether.toml ] || fail "init wrote tether.toml after refusing"
[ "$(fingerprint "$TMP/outside")" == "$OUTSIDE_BEFORE" ] || fail "a file outside the dataset changed"

# 4. The answer "nothing is tracked" is kept (.tether/cache/tracked-check) with the git
# index's stat, so a command does not read the whole index again; it holds only while that
# index is unchanged. A pull that brings a force-added secrets.toml is refused at once, also
# when the record from before the pull is put back.
cd "$TMP"
rm -rf "$TMP/attacker" "$TMP/victim"
attacker_dataset
cd "$TMP/attacker"
git add tether.toml .tether
git commit -q -m "a clean dataset"
victim_clone
sleep 2.1 # past the racy window of the clone's index
ok tether status
[ -s .tether/cache/tracked-check ] || fail "no tracked-check record after a clean status"
record_inode=$(stat -c %i .tether/cache/tracked-check)
ok tether status
[ "$(stat -c %i .tether/cache/tracked-check)" == "$record_inode" ] || fail "the record was not reused"
cp .tether/cache/tracked-check "$TMP/record"
cd "$TMP/attacker"
payload .tether
git add -f .tether/secrets.toml .tether/run.sh
git commit -q -m "now with its own secrets"
cd "$TMP/victim"
git pull -q
victim_runs '^error: \.tether/secrets\.toml is tracked by git; .*`git rm -r --cached \.tether/secrets\.toml`$'
cp "$TMP/record" .tether/cache/tracked-check
victim_runs '^error: \.tether/secrets\.toml is tracked by git; .*`git rm -r --cached \.tether/secrets\.toml`$'
# Staged by hand within the same second as a remembered check: refused too.
git rm -q --cached .tether/secrets.toml
rm .tether/secrets.toml
git rm -q --cached .tether/run.sh
rm -f .tether/run.sh
sleep 2.1
ok tether status
echo "x = 1" >.tether/secrets.toml
git add -f .tether/secrets.toml
victim_runs '^error: \.tether/secrets\.toml is tracked by git; '
