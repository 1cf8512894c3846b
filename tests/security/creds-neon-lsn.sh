#!/usr/bin/env bash
# A cloned neon manifest whose recorded state carries an LSN with URI parameters appended
# (`0/A42B78&host=evil&port=5433`): `open -r` would print a URI whose host is the attacker's,
# without the read-only option, and `--with-password` would hand psql the real password.
# tether refuses the state in one line, prints no URI, and nothing outside the dataset
# changes. Runs against the Neon API stand-in (skipped without PostgreSQL).
source "$(dirname "$0")/../cli/lib.sh"
source "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../cli/neon-lib.sh"
start_standin
new_project demo neondb alice

# The attacker: a neon object recorded without a pin (so `open -r` reads the state's LSN),
# then the LSN edited.
attacker_dataset
cd "$TMP/attacker"
printf '[backends.neon]\napi_url = "%s"\n' "$API_URL" >.tether/secrets.toml && chmod 600 .tether/secrets.toml
ok tether add db --kind neon --project-id "$PROJECT" --database neondb --role alice --pin record
ok tether commit -m first
grep -q '^lsn = "[0-9A-F]*/[0-9A-F]*"$' .tether/objects/db.toml || fail "no lsn: $(cat .tether/objects/db.toml)"
sed -i 's|^lsn = .*|lsn = "0/A42B78\&host=evil.invalid\&port=5433"|' .tether/objects/db.toml
git add -A && git commit -qm "hostile lsn"

victim_clone
printf '[backends.neon]\napi_url = "%s"\n' "$API_URL" >.tether/secrets.toml && chmod 600 .tether/secrets.toml
home_before=$(fingerprint "$HOME")
for flags in "" "--with-password" "--json"; do
  # shellcheck disable=SC2086
  fails 1 tether open db --rev HEAD $flags
  err_has "is not a PostgreSQL LSN"
  err_lines 1
  eq "$OUT" "" "what open printed ($flags)"
done
eq "$(fingerprint "$HOME")" "$home_before" "files outside the dataset"
