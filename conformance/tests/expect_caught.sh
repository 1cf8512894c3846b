#!/bin/sh
# expect_caught.sh RUNNER PLUGIN HARNESS CASE-ID...: `validate` must exit 1 AND each named
# case must be among the failures (FAIL or CRASH), so a broken plugin is rejected for the
# defect it was built with, not for some other reason.
runner=$1 plugin=$2 harness=$3
shift 3
out=$("$runner" validate "$plugin" --harness "$harness")
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then
  echo "expect_caught: validate exited $rc, expected 1"
  exit 1
fi
for id in "$@"; do
  if ! printf '%s\n' "$out" | grep -Eq "^(FAIL |CRASH) $id: "; then
    echo "expect_caught: case $id did not catch $(basename "$plugin")"
    exit 1
  fi
done
