#!/usr/bin/env bash
# Bad import input is refused with a message naming the row or key, exit 1, and nothing is
# applied: the manifests, the workspace and the op log stay byte-identical. A CSV missing
# `kind`, a kind change, an unsafe key, an unknown kind, a row without a locator, locator_json
# that is not a JSON object (or not JSON), a bad policy and a key listed twice.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
mkdir -p "$TMP/d" && echo x >"$TMP/d/x"
ok tether add db sys1 --kind memory
ok tether add raw "$TMP/d" --kind file
ok tether commit -m first

# refused SOURCE MESSAGE [FLAGS...]: import exits 1 with MESSAGE and changes nothing
refused() {
  local src=$1 msg=$2
  shift 2
  remember_state
  fails 1 tether import "$src" --sync "$@"
  err_has "error: $msg"
  unchanged "import $src"
}

printf 'key,uri\ndb,sys1\n' >"$TMP/no-kind.csv"
refused "$TMP/no-kind.csv" "import row needs \`key\` and \`kind\`: {'key': 'db', 'uri': 'sys1'}"
printf 'key,kind,uri\ndb,,sys1\n' >"$TMP/empty-kind.csv"
refused "$TMP/empty-kind.csv" "import row needs \`key\` and \`kind\`"

printf 'key,kind,uri\nnew,memory,sys5\ndb,file,%s\n' "$TMP/d" >"$TMP/kind-change.csv"
refused "$TMP/kind-change.csv" "'db' is registered as 'memory' but the source says 'file'; remove and re-add it to change kinds"

printf '{"key": "../k", "kind": "memory", "uri": "sys1"}\n' >"$TMP/unsafe.jsonl"
refused "$TMP/unsafe.jsonl" "unsafe object key: '../k'"
printf '{"key": "a\\\\b", "kind": "memory", "uri": "sys1"}\n' >"$TMP/backslash.jsonl"
refused "$TMP/backslash.jsonl" "unsafe object key: 'a\\\\b'"

printf '{"key": "k", "kind": "nope", "uri": "x"}\n' >"$TMP/kind.jsonl"
refused "$TMP/kind.jsonl" "unknown backend kind 'nope' for 'k'"

printf '{"key": "k", "kind": "memory"}\n' >"$TMP/no-locator.jsonl"
refused "$TMP/no-locator.jsonl" "import row for 'k' has no locator (uri/locator_json)"

printf '{"key": "k", "kind": "memory", "locator_json": [1]}\n' >"$TMP/locator-list.jsonl"
refused "$TMP/locator-list.jsonl" "locator_json for 'k' must be a JSON object"
printf 'key,kind,locator_json\nk,memory,[1]\n' >"$TMP/locator-list.csv"
refused "$TMP/locator-list.csv" "locator_json for 'k' must be a JSON object"
printf 'key,kind,locator_json\nk,memory,{uri: sys1}\n' >"$TMP/locator-text.csv"
refused "$TMP/locator-text.csv" "locator_json for 'k' is not valid JSON: '{uri: sys1}'"

printf '{"key": "k", "kind": "memory", "uri": "s", "policy_pin": "maybe"}\n' >"$TMP/policy.jsonl"
refused "$TMP/policy.jsonl" "invalid policy.pin: 'maybe'"

printf 'key,kind,uri\nk,memory,s1\n k ,memory,s2\n' >"$TMP/twice.csv"
refused "$TMP/twice.csv" "import source lists 'k' more than once"

printf 'key,kind,uri\n"k,memory,s1\n' >"$TMP/unclosed.csv"
refused "$TMP/unclosed.csv" "$TMP/unclosed.csv:2: a quoted field is not closed"
printf '{"key": "k"\n' >"$TMP/broken.jsonl"
refused "$TMP/broken.jsonl" "$TMP/broken.jsonl:1: not valid JSON"
refused "$TMP/missing.csv" "import source not found: $TMP/missing.csv"
refused "$TMP/objects.db" "import source not found: $TMP/objects.db"
