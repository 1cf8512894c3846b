#!/usr/bin/env bash
# The neon backend's refusals that need no API: a locator missing project_id, database or
# role names what is missing and the flags that set it; `at` is refused; api_url in the
# committed tether.toml is refused (it would point every clone's API key at that server).
. "$(dirname "$0")/lib.sh"
new_dataset
fails 1 tether add db --kind neon --project-id p-1
err_has "neon locator needs 'database', 'role' (\`--database\`, \`--role\`)"
fails 1 tether add db --kind neon --database neondb
err_has "neon locator needs 'project_id', 'role' (\`--project-id\`, \`--role\`)"
fails 1 tether add db --kind neon --project-id p-1 --database neondb --role app --at 0/16B3748
err_has "pin from a branch"
[ ! -e .tether/objects/db.toml ] || fail "a refused locator was registered"
ok tether add db --kind neon --project-id p-1 --database neondb --role app --branch dev
grep -qx 'branch = "dev"' .tether/objects/db.toml || fail "branch: $(cat .tether/objects/db.toml)"
printf '\n[backends.neon]\napi_url = "http://elsewhere.invalid/api/v2"\n' >>tether.toml
fails 1 tether status --snapshot
err_has "tether.toml [backends.neon] sets api_url"
