#!/usr/bin/env bash
# backends lists the discovered plugins with maturity, tier, capabilities and path, outside
# any dataset too; --json gives one object per kind.
. "$(dirname "$0")/lib.sh"
cd "$TMP"
ok tether backends
out_matches '^file +stable +observed +'
out_matches '^memory +[a-z]+ +forkable +.*pin.*fork'
out_matches '^ +/.*/tether-backend-file\.so \(ABI [0-9]+\.[0-9]+, plugin [0-9.]+\)$'
out_matches '^ +/.*/tether-backend-memory\.so '
out_has "experimental commands: export, publish, import (registries and SQL; the table schema may change before 0.2)"
ok tether backends --json
eq "$(json '[b["kind"] for b in j if b["kind"] in ("file", "memory")]')" "['file', 'memory']"
for f in kind installed maturity tier capabilities note path; do
  eq "$(json "all('$f' in b for b in j)")" "True" "field $f"
done
eq "$(json '[b for b in j if b["kind"] == "memory"][0]["installed"]')" "True"
eq "$(json '"pin" in [b for b in j if b["kind"] == "memory"][0]["capabilities"]')" "True"
eq "$(json '"pin" in [b for b in j if b["kind"] == "file"][0]["capabilities"]')" "False"
eq "$(json '[b for b in j if b["kind"] == "file"][0]["tier"]')" "observed"
grep -q '/tether-backend-file\.so$' <<<"$(json '[b for b in j if b["kind"] == "file"][0]["path"]')" || fail "file path"
# git: stable, Forkable, with every flag of the issue
ok tether backends
out_matches '^git +stable +forkable +addressable, pin, fork, cheap_fingerprint, atomic_ref, diff, history, promote, merge, create, conditional_ref$'
out_matches '^ +/.*/tether-backend-git\.so '
# icechunk: Forkable without merge, stable: its whole lifecycle runs against real Icechunk
out_matches '^icechunk +stable +forkable +addressable, pin, fork, atomic_ref, diff, history, promote, create, conditional_ref$'
# neon: experimental, Forkable, no promote/merge
out_matches '^neon +experimental +forkable +addressable, pin, fork, retention_bound, needs_quiescence, branch_is_storage$'
out_matches '^ +/.*/tether-backend-neon\.so '
# Object-store schemes, grouped by maturity (ducklake: data paths for verify --deep).
ok tether backends
out_has "object stores: s3, s3a stable; abfss, az, gs experimental"
ok tether backends --json
eq "$(json '[b for b in j if b["kind"] == "ducklake"][0]["uri_schemes"]["s3"]')" "stable"
eq "$(json '[b for b in j if b["kind"] == "ducklake"][0]["uri_schemes"]["az"]')" "experimental"
# icechunk: repositories in buckets (s3 against Ceph in the tests; gs through GCS's S3 API;
# Azure against Azurite)
eq "$(json '[b for b in j if b["kind"] == "icechunk"][0]["uri_schemes"]')" "{'abfs': 'experimental', 'abfss': 'experimental', 'az': 'experimental', 'azure': 'experimental', 'gcs': 'experimental', 'gs': 'experimental', 's3': 'stable', 's3a': 'stable'}"
ok tether backends
out_has "object stores: s3, s3a stable; abfs, abfss, az, azure, gcs, gs, http, https experimental"
