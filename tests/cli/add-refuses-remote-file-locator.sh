#!/usr/bin/env bash
# The file backend refuses object-store locators (s3://...) for now, with a clear message.
. "$(dirname "$0")/lib.sh"
new_dataset
remember_state
fails 1 tether add bucket s3://some-bucket/prefix/ --kind file
err_lines 1
err_matches "^error: \[bucket\] .*s3://some-bucket/prefix/"
unchanged
