#!/usr/bin/env bash
# A cloned ducklake manifest names a PostgreSQL catalog on a server the attacker runs: a
# listener (pg_listener.py) that asks every client for a cleartext password and records it.
# The victim's environment holds PostgreSQL credentials for the victim's own servers:
# $PGPASSWORD, a $PGPASSFILE and a ~/.pgpass with `*` host lines, a $PGSERVICE whose service
# carries a password. `status --snapshot`, `verify` and `log` send none of them (the listener
# sees only the placeholder), nothing outside the dataset changes, and the victim gets one
# line saying why and the way out. The ways out then work: a ~/.pgpass line naming the host
# gives exactly that password, `hosts = [...]` in secrets.toml gives the environment's.
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
: "${DUCKLAKE_LAKE:?DUCKLAKE_LAKE must point at the built ducklake-lake tool}"

python3 "$(dirname "$0")/pg_listener.py" "$TMP/port" "$TMP/listener.log" &
LISTENER=$!
trap 'kill "$LISTENER" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
PORT=$(cat "$TMP/port")
sent() { python3 -c 'import json,sys; print("\n".join(str(json.loads(l)["password"]) for l in open(sys.argv[1])))' "$TMP/listener.log"; }

# The attacker: a ducklake object whose catalog is the listener.
"$DUCKLAKE_LAKE" create "$TMP/lake.db" >/dev/null
attacker_dataset
cd "$TMP/attacker"
ok tether add lake "ducklake:sqlite:$TMP/lake.db" --kind ducklake
sed -i "s|^uri = .*|uri = \"ducklake:postgres:host=127.0.0.1 port=$PORT dbname=lake user=victim\"|" .tether/objects/lake.toml
grep -q "port=$PORT" .tether/objects/lake.toml || fail "the manifest was not rewritten: $(cat .tether/objects/lake.toml)"
git add -A && git commit -qm "a lake"

# The victim, with credentials for other servers all over the environment.
export PGPASSWORD=victim-env-password
printf '*:*:*:*:victim-passfile-password\n' >"$HOME/passfile" && chmod 600 "$HOME/passfile"
export PGPASSFILE="$HOME/passfile"
printf '*:*:*:*:victim-wildcard-password\n' >"$HOME/.pgpass" && chmod 600 "$HOME/.pgpass"
printf '[mine]\npassword=victim-service-password\n' >"$HOME/services"
export PGSERVICEFILE="$HOME/services" PGSERVICE=mine
export PGHOST=db.victim.invalid
victim_clone
home_before=$(fingerprint "$HOME")

fails 1 tether status --snapshot
err_has "asks for a password, and tether gives the environment's PostgreSQL credentials"
err_has "only to hosts you named"
err_has "~/.pgpass line for 127.0.0.1"
run tether verify
run tether log lake
[ -s "$TMP/listener.log" ] || fail "the listener saw no connection"
grep -q victim- "$TMP/listener.log" && fail "a credential reached the attacker's server: $(cat "$TMP/listener.log")"
[ -z "$(sent | grep -vx 'tether-sends-no-password-to-hosts-you-did-not-name' || true)" ] || fail "unexpected password: $(sent)"
eq "$(fingerprint "$HOME")" "$home_before" "files outside the dataset"

# A manifest may not choose credentials or files here either.
sed -i "s|^uri = .*|uri = \"ducklake:postgres:host=127.0.0.1 port=$PORT dbname=lake service=mine\"|" .tether/objects/lake.toml
: >"$TMP/listener.log"
fails 1 tether status --snapshot
err_has "sets 'service', which chooses credentials or files on this machine"
[ ! -s "$TMP/listener.log" ] || fail "connected despite a refused conninfo"
git checkout -q .tether/objects/lake.toml

# The ways out. A ~/.pgpass line naming the host: that password, and only it.
printf '127.0.0.1:%s:lake:victim:for-this-host\n' "$PORT" >>"$HOME/.pgpass"
: >"$TMP/listener.log"
fails 1 tether status --snapshot
eq "$(sent | sort -u)" "for-this-host" "the password sent with a ~/.pgpass line for the host"
# The host named in secrets.toml: the environment applies as libpq has it ($PGPASSWORD; a
# service's password would beat it, so the service goes).
unset PGSERVICE
printf '%s\n' "$(grep -v for-this-host "$HOME/.pgpass")" >"$HOME/.pgpass"
printf '[objects."lake"]\nhosts = ["127.0.0.1"]\n' >.tether/secrets.toml && chmod 600 .tether/secrets.toml
: >"$TMP/listener.log"
fails 1 tether status --snapshot
eq "$(sent | sort -u)" "victim-env-password" "the password sent to a host named in secrets.toml"
