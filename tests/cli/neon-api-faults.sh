#!/usr/bin/env bash
# The neon backend against a failing API stand-in: 503s (and a 423 with Retry-After) are
# retried and the command succeeds once the server recovers; a wrong key is one clear error
# naming the variable it came from, and so is a missing one (also when secrets.toml names
# another variable with api_key_env).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/neon-lib.sh"
start_standin
new_project faults neondb alice
new_neon_dataset
ok tether add db --kind neon --project-id "$PROJECT" --database neondb --role alice
psql "$MAIN_URI" -qc "create table t(x int)"

control DELETE requests >/dev/null
control POST faults '{"status": 503, "count": 3}' >/dev/null
control POST faults '{"status": 423, "count": 1, "retry_after": "1", "prefix": "/projects/'"$PROJECT"'/endpoints"}' >/dev/null
ok tether commit -m first --json
pin=$(json 'j["pinned"]["db"]')
grep -qx "$pin" <<<"$(branch_names)" || fail "no pin branch after the outage"
faults=$(control GET requests | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin)["requests"] if r["fault"]))')
eq "$faults" 4 "faults served (then retried)"

key=$NEON_API_KEY
NEON_API_KEY=wrong fails 1 tether status --snapshot
err_has "401"
err_has "the API key in \$NEON_API_KEY was refused"
env -u NEON_API_KEY "$TETHER" status --snapshot >/dev/null 2>"$TMP/err" && fail "status without a key succeeded"
grep -qF 'Neon API key not found in $NEON_API_KEY' "$TMP/err" || fail "missing key: $(cat "$TMP/err")"

printf 'api_key_env = "TEAM_NEON_KEY"\n' >>.tether/secrets.toml
fails 1 tether status --snapshot
err_has 'Neon API key not found in $TEAM_NEON_KEY'
TEAM_NEON_KEY=$key ok tether status --snapshot
out_matches '^ +clean +db'
