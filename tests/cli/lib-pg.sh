# Sourced by the CLI scenarios that read a throwaway PostgreSQL with psql, after they set
# `here`: re-runs the scenario inside tests/pg/with-cluster when no cluster is up, sources
# lib.sh, skips without psql, and defines pg SQL (one statement, unaligned, stops on error)
# and count TABLE.
if [ -z "${TETHER_TEST_PG_CONNINFO:-}" ]; then exec "$here/../pg/with-cluster" bash "$0" "$@"; fi
. "$here/lib.sh"
command -v psql >/dev/null || { echo "SKIP [$SCENARIO]: no psql" >&2; exit 77; }
pg() { psql -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
count() { pg "SELECT count(*) FROM $1"; }
