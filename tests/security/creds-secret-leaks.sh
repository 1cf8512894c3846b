#!/usr/bin/env bash
# Credentials never reach output or the op log. A git object's push URL comes from
# secrets.toml with a token in it (https://alice:TOKEN@host/x.git): the failed push's error,
# ops.jsonl, `tether ops` and `tether ops --json` show the URL without the token. A DSN with a
# password given to `tether import` is not echoed in the error or stored in the op log.
# The commands the victim runs in a cloned dataset are the ones anybody runs; the tokens are
# the victim's own, and they must stay where the victim put them.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
token=ghp_SECRETTOKEN1234
password=p4ss-w0rd-SECRET

new_code_repo "$TMP/code"
attacker_dataset
cd "$TMP/attacker"
ok tether add code "$TMP/code" --kind git
git add -A && git commit -qm "track code"
victim_clone
# Port 9 on 127.0.0.1: nothing listens, the push fails fast.
printf '[objects."code"]\nremote = "http://alice:%s@127.0.0.1:9/x.git"\n' "$token" >.tether/secrets.toml
chmod 600 .tether/secrets.toml

fails 1 tether commit -m pin
err_has "was not pushed to http://alice:****@127.0.0.1:9/x.git"
err_lines 1
grep -q "$token" <<<"$OUT$ERR" && fail "the token was printed"
ok tether ops
grep -q "$token" <<<"$OUT" && fail "tether ops printed the token"
ok tether ops --json
grep -q "$token" <<<"$OUT" && fail "tether ops --json printed the token"
[ -s .tether/ops.jsonl ] || fail "the failed commit left no op-log entry"
grep -q "$token" .tether/ops.jsonl && fail "ops.jsonl holds the token: $(cat .tether/ops.jsonl)"
grep -q 'alice:\*\*\*\*@127.0.0.1' .tether/ops.jsonl || fail "ops.jsonl does not record the (redacted) failure: $(cat .tether/ops.jsonl)"

# import: a key=value DSN and a URI, both with passwords, as a user types them.
for dsn in "host=127.0.0.1 port=9 password=$password dbname=x" "postgresql://u:$password@127.0.0.1:9/x" \
  "host=127.0.0.1 port=9 password='$password' dbname=x"; do
  run tether import "$dsn" --table t
  [ "$RC" -ne 0 ] || fail "import from a closed port succeeded"
  grep -q "$password" <<<"$OUT$ERR" && fail "import printed the password: $ERR"
  run tether import "$dsn" --table t --json
  grep -q "$password" <<<"$OUT$ERR" && fail "import --json printed the password: $OUT $ERR"
done
fails 1 tether import "nothere password=$password dbname=x" --table t
grep -q "$password" <<<"$OUT$ERR" && fail "import printed the password: $ERR"
err_has "password=****"
! grep -q "$password" .tether/ops.jsonl 2>/dev/null || fail "ops.jsonl holds the password"
! grep -rq "$password\|$token" .tether --include='*.jsonl' --include='*.json' || fail "a credential is stored under .tether"
