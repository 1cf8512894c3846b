#!/usr/bin/env bash
# Progress from inside a plugin (issue 19): on a terminal, the file backend's walk and hashing
# show on stderr as `hashing d: n/total files, bytes` and the line is cleared before the
# result; a quick command shows nothing; on a pipe and with --json nothing at all.
. "$(dirname "$0")/lib.sh"
new_dataset
python3 - "$TMP/d" <<'PY'
import os, sys
for d in range(4):
    os.makedirs(f"{sys.argv[1]}/s{d}")
    for i in range(500):
        with open(f"{sys.argv[1]}/s{d}/f{i}", "w") as f:
            f.write(f"file {d}/{i}\n" * 10)
PY
ok tether add d "$TMP/d" --kind file
# Past the stat cache's racy window (2 s after a file last changed), so the first run's
# hashes are trusted by the next.
sleep 3

# on_tty CMD...: runs CMD with stdin, stdout and stderr on a pseudo-terminal; TTY holds all
# it wrote there, RC its exit status.
on_tty() {
  set +e
  python3 - "$@" >"$TMP/.tty" <<'PY'
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    out += chunk
rc = p.wait()
sys.stdout.buffer.write(out)
sys.exit(rc)
PY
  RC=$?
  set -e
  TTY=$(cat "$TMP/.tty")
}
tty_has() { grep -qE -- "$1" <<<"$TTY" || { OUT=$TTY; fail "the terminal does not show: $1"; }; }
tty_lacks() { ! grep -qE -- "$1" <<<"$TTY" || { OUT=$TTY; fail "the terminal shows: $1"; }; }
CLEAR=$'\r\033\\[K'

# Drawn at once and at every report (the test's timing), then cleared before the result.
export TETHER_PROGRESS_DELAY_MS=0 TETHER_PROGRESS_INTERVAL_MS=0
rm -rf .tether/cache
on_tty "$TETHER" status --snapshot
eq "$RC" "0" "status on a terminal"
tty_has "scanning d: [0-9,]+ files"
tty_has "hashing d: [0-9,]+/2,000 files, [0-9.]+ (B|kB)"
# Every byte read is counted: the tree's size, in kB (it is between 100 and 999 kB).
bytes=$(find "$TMP/d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
tty_has "hashing d: 2,000/2,000 files, $(((bytes + 500) / 1000)) kB"
# The last progress line is cleared, and the result comes after it.
after=$(python3 -c 'import sys; t = sys.stdin.read(); print(t[t.rindex("hashing d:"):].replace("\033", "ESC"))' <<<"$TTY")
grep -q $'\rESC\\[K' <<<"$after" || { OUT=$after; fail "the progress line is not cleared"; }
grep -qE '^dataset [0-9a-f]{12}; ' <<<"$(tr -d '\r' <<<"${after##*ESC[K}")" || { OUT=$after; fail "no result after the cleared line"; }

# A warm run reads no file: it may show the walk, never hashing.
on_tty "$TETHER" status --snapshot
eq "$RC" "0"
tty_lacks "hashing"

# A command quicker than the delay shows nothing.
rm -rf .tether/cache
TETHER_PROGRESS_DELAY_MS=60000 on_tty "$TETHER" status --snapshot
eq "$RC" "0"
tty_lacks "scanning|hashing|fingerprinting"
tty_lacks "$CLEAR"

# --json on a terminal: the JSON only.
rm -rf .tether/cache
on_tty "$TETHER" status --snapshot --json
eq "$RC" "0"
tty_lacks "scanning|hashing|fingerprinting"
tty_lacks "$CLEAR"
tty_has '"objects"'

# A pipe: nothing on stderr.
rm -rf .tether/cache
ok tether status --snapshot
eq "$ERR" ""
out_matches '^dataset [0-9a-f]{12}; '

# Nothing of it reaches the op log.
ok tether commit -m first
[ -s .tether/ops.jsonl ] || fail "no op log"
! grep -qE "hashing|scanning" .tether/ops.jsonl || fail "progress in the op log"

# One big file shows its bytes while it is read, before the file counts as done.
truncate -s 64M "$TMP/big.bin"
ok tether add big "$TMP/big.bin" --kind file
on_tty "$TETHER" status --snapshot
eq "$RC" "0" "status of one big file on a terminal"
tty_has "hashing big: 0/1 files, (16|33|50)\.[0-9] MB"
tty_has "hashing big: 1/1 files, 67\.1 MB"

# verify and gc read the commits their history index lacks under a line of their own
# (a first run reads every commit); once the index holds them, nothing is read.
rm -f "$(git rev-parse --git-common-dir)/tether-history"
on_tty "$TETHER" verify --all-history
eq "$RC" "0" "verify --all-history on a terminal"
tty_has "reading history [0-9]+/[0-9]+"
on_tty "$TETHER" gc
eq "$RC" "0" "gc on a terminal"
tty_lacks "reading history"
rm -f "$(git rev-parse --git-common-dir)/tether-history"
on_tty "$TETHER" gc
tty_has "reading history [0-9]+/[0-9]+"
