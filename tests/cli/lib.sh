# tests/cli/lib.sh: sourced by every CLI scenario. Each scenario runs in its own temporary
# directory with its own HOME, a git identity in the environment (CI has none configured),
# and the built `tether` and plugins (TETHER and TETHER_PLUGIN_PATH come from meson).
set -euo pipefail

: "${TETHER:?TETHER must point at the built tether executable}"
SCENARIO=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tether-${SCENARIO}.XXXXXX")
cleanup() { [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT

export HOME="$TMP/home"
mkdir -p "$HOME"
export GIT_AUTHOR_NAME="tether test" GIT_AUTHOR_EMAIL="test@example.invalid"
export GIT_COMMITTER_NAME="tether test" GIT_COMMITTER_EMAIL="test@example.invalid"
export GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
unset GIT_DIR GIT_WORK_TREE

tether() { "$TETHER" "$@"; }

fail() {
  echo "FAIL [$SCENARIO]: $*" >&2
  if [ -n "${OUT+x}" ]; then echo "--- stdout:" >&2; printf '%s\n' "$OUT" >&2; fi
  if [ -n "${ERR+x}" ]; then echo "--- stderr:" >&2; printf '%s\n' "$ERR" >&2; fi
  exit 1
}

# run CMD...: runs a command, keeping its stdout in OUT, stderr in ERR and exit code in RC.
run() {
  local o e
  o="$TMP/.out" e="$TMP/.err"
  set +e
  "$@" >"$o" 2>"$e"
  RC=$?
  set -e
  OUT=$(cat "$o")
  ERR=$(cat "$e")
}

# ok CMD...: the command must succeed.
ok() { run "$@"; [ "$RC" -eq 0 ] || fail "expected success (got exit $RC): $*"; }
# fails CODE CMD...: the command must exit with CODE.
fails() {
  local code=$1
  shift
  run "$@"
  [ "$RC" -eq "$code" ] || fail "expected exit $code (got $RC): $*"
}

out_has() { grep -qF -- "$1" <<<"$OUT" || fail "stdout lacks: $1"; }
out_lacks() { ! grep -qF -- "$1" <<<"$OUT" || fail "stdout has: $1"; }
out_matches() { grep -qE -- "$1" <<<"$OUT" || fail "stdout does not match: $1"; }
err_has() { grep -qF -- "$1" <<<"$ERR" || fail "stderr lacks: $1"; }
err_matches() { grep -qE -- "$1" <<<"$ERR" || fail "stderr does not match: $1"; }
err_lines() { [ "$(grep -c . <<<"$ERR" || true)" -eq "$1" ] || fail "stderr has not exactly $1 line(s)"; }
eq() { [ "$1" == "$2" ] || fail "expected '$2', got '$1'${3:+ ($3)}"; }
# json EXPR: evaluates a Python expression over the parsed stdout (bound to `j`).
json() { python3 -c "import json,sys; j=json.loads(sys.stdin.read()); print($1)" <<<"$OUT"; }

# A fresh git repository with one commit, and a tether dataset initialised in it. Leaves the
# shell in the dataset directory; $DS is its path.
new_dataset() {
  DS="$TMP/ds"
  mkdir -p "$DS"
  cd "$DS"
  git init -q -b main
  git commit -q --allow-empty -m "initial"
  ok tether init
}

# Snapshot of a directory's tracked and untracked files (content hashes), to prove a failed
# command changed nothing.
tree_state() { (cd "${1:-.}" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum 2>/dev/null || true); }

# remember_state / unchanged: prove a refused command changed nothing. remember_state records
# the dataset's files (tree_state, without the empty lock file a refused writer may create and
# the backends' scratch cache under .tether/cache) and HEAD; unchanged compares both.
# With IGNORE_OPLOG=1 the op log is left out too: a command that fails part-way records its
# rolled-back attempt there, by design.
state_now() {
  local skip='lock$|cache/'
  [ -z "${IGNORE_OPLOG:-}" ] || skip="$skip|ops\.jsonl$"
  tree_state "${1:-.}" | grep -Ev "  \./\.tether/($skip)" || true
}
remember_state() { BEFORE_TREE=$(state_now); BEFORE_HEAD=$(git rev-parse -q --verify HEAD || echo none); }
unchanged() {
  [ "$(state_now)" == "$BEFORE_TREE" ] || fail "files changed${1:+ ($1)}: $(diff <(echo "$BEFORE_TREE") <(state_now) || true)"
  [ "$(git rev-parse -q --verify HEAD || echo none)" == "$BEFORE_HEAD" ] || fail "HEAD moved${1:+ ($1)}"
}

# kill_tether_at_git_commit: a pre-commit hook in the dataset repository that SIGKILLs the
# tether running the commit, then refuses the commit so git itself backs out cleanly: a crash
# after the pins and manifests, before the VCS commit. The hook's parent is git, git's parent
# is tether (tether's children survive it: same process group, SIGKILL). Remove
# .git/hooks/pre-commit to stop crashing.
kill_tether_at_git_commit() {
  cat >.git/hooks/pre-commit <<'SH'
#!/bin/sh
tether_pid=$(ps -o ppid= -p "$PPID" 2>/dev/null | tr -d ' ')
[ -n "$tether_pid" ] || tether_pid=$(cut -d' ' -f4 "/proc/$PPID/stat")
kill -9 "$tether_pid"
exit 1
SH
  chmod +x .git/hooks/pre-commit
}

# The memory backend keeps its systems in one JSON file when TETHER_MEMORY_STORE names it
# (conformance/memory/store.hpp); use_memory_store points it into $TMP.
use_memory_store() { export TETHER_MEMORY_STORE="$TMP/memory-store.json"; }
# mem PYEXPR: evaluates a Python expression over the store (bound to `s`; {} if no file yet).
mem() {
  python3 - "$TETHER_MEMORY_STORE" "$1" <<'PY'
import json, os, sys
path, expr = sys.argv[1], sys.argv[2]
s = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {"systems": {}, "deleted": []}
print(eval(expr))
PY
}
# mem_tags SYSTEM: the system's tags, one `name snapshot` a line, sorted.
mem_tags() { mem "'\n'.join(f'{k} {v}' for k, v in sorted(s['systems'].get('$1', {}).get('tags', {}).items()))"; }
# mem_edit SYSTEM ACTION: changes the store as another writer would (under its flock).
#   advance     a new snapshot on main (the system is materialised first, as the backend does)
#   untag REF   deletes a tag
#   write BRANCH [KEY]  a new snapshot on an existing BRANCH (parent: its current head); prints its id.
#                 With KEY, the snapshot is the head's content plus KEY (so it merges with other keys).
mem_edit() {
  python3 - "$TETHER_MEMORY_STORE" "$@" <<'PY'
import fcntl, json, os, sys
path, name, action, *args = sys.argv[1:]
with open(path + ".lock", "a+") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    s = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else \
        {"format": "tether-memory-store/1", "systems": {}, "deleted": []}
    sys_ = s["systems"].setdefault(name, {"snapshots": {f"{name}:s0": {}}, "branches": {"main": f"{name}:s0"},
                                          "tags": {}, "parents": {f"{name}:s0": []}, "counter": 0, "owner": None})
    if action == "advance":
        sys_["counter"] += 1
        sid = f"{name}:s{sys_['counter']}"
        sys_["snapshots"][sid] = {"n": sys_["counter"]}
        sys_["parents"][sid] = [sys_["branches"]["main"]]
        sys_["branches"]["main"] = sid
        print(sid)
    elif action == "untag":
        del sys_["tags"][args[0]]
    elif action == "write":
        branch = args[0]
        if branch not in sys_["branches"]:
            sys.exit(f"mem_edit: no branch {branch} in {name}")
        sys_["counter"] += 1
        sid = f"{name}:s{sys_['counter']}"
        if len(args) > 1:  # write KEY on top of what the branch holds (merges cleanly with other keys)
            sys_["snapshots"][sid] = dict(sys_["snapshots"][sys_["branches"][branch]], **{args[1]: sys_["counter"]})
        else:
            sys_["snapshots"][sid] = {"n": sys_["counter"], "branch": branch}
        sys_["parents"][sid] = [sys_["branches"][branch]]
        sys_["branches"][branch] = sid
        print(sid)
    else:
        sys.exit("mem_edit: unknown action " + action)
    tmp = path + ".tmp.test"
    json.dump(s, open(tmp, "w"))
    os.rename(tmp, path)
PY
}

# new_code_repo DIR: a git repository (branch main, one commit of main.py) outside the
# dataset, as a second repository a dataset tracks with the git backend.
new_code_repo() {
  mkdir -p "$1"
  git -C "$1" init -q -b main
  printf 'print("v1")\n' >"$1/main.py"
  git -C "$1" add main.py
  git -C "$1" commit -q -m "first version"
}
# code_commit DIR FILE TEXT: commits FILE with TEXT in the code repository; prints the sha.
code_commit() {
  printf '%s\n' "$3" >"$1/$2"
  git -C "$1" add -A
  git -C "$1" commit -q -m "change $2"
  git -C "$1" rev-parse HEAD
}

# on_tty ANSWER CMD...: runs CMD on a pseudo-terminal (stdin, stdout and stderr), types
# ANSWER and a newline once it has asked "Pick an entry", and sets OUT (all it printed, CRs
# dropped) and RC as run does.
on_tty() {
  local answer=$1
  shift
  set +e
  OUT=$(python3 - "$answer" "$@" <<'PY'
import os, pty, sys
answer, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
seen, sent = b"", False
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if not sent and b"Pick an entry" in seen:
        os.write(fd, answer.encode() + b"\n")
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace").replace("\r", ""))
sys.exit(os.waitstatus_to_exitcode(status))
PY
)
  RC=$?
  set -e
}

# The real Icechunk library (tests/icechunk): `icechunk CMD ARGS...` runs its oracle.mjs and
# prints the JSON result. need_icechunk exits 77 (meson: skipped) when the runtime that
# scripts/install-deps prepares is not usable here.
ICECHUNK_DIR=$(cd "$(dirname "$0")/../icechunk" && pwd)
need_icechunk() {
  if ! (cd "$ICECHUNK_DIR" && ./icechunk-node -e "import('@earthmover/icechunk').then(() => process.exit(0), () => process.exit(1))") 2>/dev/null; then
    echo "SKIP [$SCENARIO]: the real Icechunk runtime is not usable (tests/icechunk/setup-runtime)" >&2
    exit 77
  fi
}
icechunk() { "$ICECHUNK_DIR/icechunk-node" "$ICECHUNK_DIR/oracle.mjs" "$@"; }
# icechunk_snap CMD ARGS...: runs a write and prints the new snapshot id.
icechunk_snap() { icechunk "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshot"])'; }

# registry_history: a dataset (new_dataset, memory store) with a memory object `db` and a
# versioned directory `raw/plate`, committed three times: "baseline", db moved (a message with
# commas, quotes, a newline and non-ASCII text), "plate moved". For the export scenarios.
registry_history() {
  use_memory_store
  new_dataset
  ok tether add db sys1 --kind memory
  mkdir -p "$TMP/plate" && printf abcd >"$TMP/plate/a.bin"
  ok tether add raw/plate "$TMP/plate" --kind file --file versioned
  ok tether commit -m baseline
  mem_edit sys1 advance >/dev/null
  ok tether commit -m $'db moved, "quoted"\nsecond line: café 日本'
  printf xy >"$TMP/plate/b.bin"
  ok tether commit -m "plate moved"
}

# Azure Blob scenarios run through tests/azure/with-azurite (Azurite, exporting
# TETHER_TEST_AZURE_*): need_azure exits 77 (meson: skipped) without it; az_container STEM
# makes a container of this scenario's own (a SharedKey-signed PUT with curl and openssl,
# independent of tether's client) and prints its name; az_secrets CONTAINER gives the
# dataset the endpoint, account and key for it in .tether/secrets.toml.
need_azure() {
  if [ -z "${TETHER_TEST_AZURE_ENDPOINT:-}" ]; then
    echo "SKIP [$SCENARIO]: no Azure Blob emulator (run it through tests/azure/with-azurite)" >&2
    exit 77
  fi
}
az_container() {
  local c date path sig hexkey
  c=$(printf '%s' "tether-$1-$$-$RANDOM" | tr 'A-Z_' 'a-z-' | cut -c1-63)
  date=$(LC_ALL=C TZ=GMT date '+%a, %d %b %Y %H:%M:%S GMT')
  path="/${TETHER_TEST_AZURE_ENDPOINT#*://*/}/$c"
  hexkey=$(printf '%s' "$TETHER_TEST_AZURE_KEY" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  sig=$(printf 'PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:%s\nx-ms-version:2021-12-02\n/%s%s\nrestype:container' \
    "$date" "$TETHER_TEST_AZURE_ACCOUNT" "$path" |
    openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" -binary | base64 -w0)
  curl -fsS -X PUT -H "x-ms-date: $date" -H "x-ms-version: 2021-12-02" -H "Content-Length: 0" \
    -H "Authorization: SharedKey $TETHER_TEST_AZURE_ACCOUNT:$sig" \
    "$TETHER_TEST_AZURE_ENDPOINT/$c?restype=container" >/dev/null || fail "cannot create container $c"
  echo "$c"
}
az_secrets() {
  mkdir -p .tether
  cat >>.tether/secrets.toml <<TOML
[uris."az://$1/"]
endpoint = "$TETHER_TEST_AZURE_ENDPOINT"
allow_http = true
account_name = "$TETHER_TEST_AZURE_ACCOUNT"
account_key = "$TETHER_TEST_AZURE_KEY"
TOML
  chmod 600 .tether/secrets.toml
}

# The throwaway Ceph object gateway (tests/s3/with-cluster, which runs the S3 scenarios and
# exports TETHER_TEST_S3_*): need_s3 exits 77 (meson: skipped) without it; s3_bucket STEM
# makes a bucket of this scenario's own with Debian's AWS CLI and prints its name;
# s3_secrets BUCKET gives the dataset the endpoint and keys for it in .tether/secrets.toml
# (the only place tether takes an endpoint from, besides the environment).
need_s3() {
  if [ -z "${TETHER_TEST_S3_ENDPOINT:-}" ]; then
    echo "SKIP [$SCENARIO]: no S3 cluster (run it through tests/s3/with-cluster)" >&2
    exit 77
  fi
}
s3_bucket() {
  local b
  b=$(printf '%s' "tether-$1-$$-$RANDOM" | tr 'A-Z_' 'a-z-' | cut -c1-63)
  /usr/bin/aws --endpoint-url "$TETHER_TEST_S3_ENDPOINT" s3api create-bucket --bucket "$b" >/dev/null ||
    fail "cannot create bucket $b"
  echo "$b"
}
s3_secrets() {
  mkdir -p .tether
  cat >>.tether/secrets.toml <<TOML
[uris."s3://$1/"]
endpoint = "$TETHER_TEST_S3_ENDPOINT"
allow_http = true
region = "$TETHER_TEST_S3_REGION"
access_key_id = "$TETHER_TEST_S3_ACCESS_KEY_ID"
secret_access_key = "$TETHER_TEST_S3_SECRET_ACCESS_KEY"
TOML
  chmod 600 .tether/secrets.toml
}
