#!/usr/bin/env bash
# Committed tether.toml may not choose executables ([vcs] git_path) nor set backend keys
# outside the backend's allowlist; both are refused with the reference's message.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add d "$TMP/d" --kind file
cp tether.toml "$TMP/tether.toml.orig"
printf '\n[backends.file]\nendpoint = "http://evil.invalid"\n' >>tether.toml
fails 1 tether status --snapshot
err_has "tether.toml [backends.file] sets endpoint; a committed file arrives with every clone and must not choose executables, endpoints, credentials, or SQL. Put it in .tether/secrets.toml (untracked) under [backends.file], or in the environment"
remember_state
fails 1 tether commit -m x
err_lines 1
err_has "tether.toml [backends.file] sets endpoint"
unchanged
# the allowlisted storage_options keys pass, others inside it do not
cp "$TMP/tether.toml.orig" tether.toml
printf '\n[backends.file.storage_options]\nregion = "eu"\nsecret_access_key = "x"\n' >>tether.toml
fails 1 tether status --snapshot
err_has "sets storage_options.secret_access_key;"
cp "$TMP/tether.toml.orig" tether.toml
ok tether status --snapshot

printf '\n[vcs]\ngit_path = "/tmp/evil-git"\n' >>tether.toml
remember_state
fails 1 tether status
err_lines 1
eq "$ERR" "error: tether.toml [vcs] sets git_path; a committed file arrives with every clone and must not choose executables. Put it in .tether/secrets.toml (untracked) under [vcs], or set TETHER_GIT / TETHER_JJ"
unchanged
