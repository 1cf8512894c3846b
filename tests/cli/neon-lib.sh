# tests/cli/neon-lib.sh: sourced after lib.sh by the neon scenarios. Starts the Neon API
# stand-in (tests/support/neon-standin: every branch a real PostgreSQL cluster) in $TMP, makes
# a project, and configures a dataset to use it the way a user does: api_url in
# .tether/secrets.toml [backends.neon], the key in $NEON_API_KEY. Skips (77) where no usable
# PostgreSQL is installed.
STANDIN="$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)/neon-standin"
command -v psql >/dev/null || { echo "$SCENARIO: no psql here -- skipped" >&2; exit 77; }

stop_standin() { "$STANDIN" stop "$TMP/standin" >/dev/null 2>&1 || true; }

# start_standin: API_URL, CONTROL (the /_standin control API) and NEON_API_KEY.
start_standin() {
  local rc=0
  "$STANDIN" start "$TMP/standin" >"$TMP/standin.out" 2>&1 || rc=$?
  if [ "$rc" -eq 77 ]; then echo "$SCENARIO: no usable PostgreSQL for the Neon stand-in -- skipped" >&2; exit 77; fi
  [ "$rc" -eq 0 ] || fail "neon-standin start failed: $(cat "$TMP/standin.out")"
  trap 'stop_standin; cleanup' EXIT
  API_URL=$(cat "$TMP/standin/url")
  CONTROL=${API_URL%/api/v2}/_standin
  NEON_API_KEY=$(cat "$TMP/standin/api_key")
  export NEON_API_KEY
}

# new_project NAME DB ROLE: PROJECT (its id) and MAIN_URI (main's connection URI).
new_project() {
  local out
  out=$("$STANDIN" create-project "$TMP/standin" "$@") || fail "create-project $*"
  PROJECT=$(sed -n 1p <<<"$out")
  MAIN_URI=$(sed -n 2p <<<"$out")
}

# new_neon_dataset: a dataset whose secrets point the neon backend at the stand-in.
new_neon_dataset() {
  new_dataset
  printf '[backends.neon]\napi_url = "%s"\n' "$API_URL" >.tether/secrets.toml
  chmod 600 .tether/secrets.toml
}

# branch_list: "<id> <name>" for every branch of $PROJECT (all pages of the listing).
branch_list() {
  python3 - "$API_URL" "$PROJECT" "$NEON_API_KEY" <<'PY'
import json, sys, urllib.request
url, project, key = sys.argv[1:]
cursor = ""
while True:
    q = f"{url}/projects/{project}/branches?limit=100" + (f"&cursor={cursor}" if cursor else "")
    page = json.load(urllib.request.urlopen(urllib.request.Request(q, headers={"Authorization": f"Bearer {key}"})))
    for b in page["branches"]:
        print(b["id"], b["name"])
    cursor = (page.get("pagination") or {}).get("cursor")
    if not page["branches"] or not cursor:
        break
PY
}
branch_names() { branch_list | cut -d' ' -f2- | sort; }
branch_id() { branch_list | awk -v n="$1" '$2 == n { print $1 }'; }

# control METHOD PATH [BODY]: the stand-in's test control API.
control() { curl -sf -X "$1" -H 'Content-Type: application/json' ${3:+-d "$3"} "$CONTROL/$2"; }

count_rows() { psql "$1" -Atc "select count(*) from t"; }
