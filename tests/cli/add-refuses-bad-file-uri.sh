#!/usr/bin/env bash
# The file backend refuses, at add and before sending anything, an object-store URL it cannot
# use (no bucket), a locator region that is no region name, and a scheme it does not read.
. "$(dirname "$0")/lib.sh"
new_dataset
remember_state
fails 1 tether add bucket s3:///prefix/ --kind file
err_lines 1
err_matches "^error: \[bucket\] cannot use object-store URL 's3:///prefix/': "
fails 1 tether add bucket s3://some-bucket/prefix/ --kind file --set region=evil.example/x
err_lines 1
err_matches "^error: \[bucket\] file locator 'region' must be a region name"
fails 1 tether add bucket ftp://host/prefix/ --kind file
err_lines 1
err_matches "^error: \[bucket\] unsupported file URI scheme: 'ftp'"
unchanged
