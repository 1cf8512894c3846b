# tests/security/lib.sh: sourced after tests/cli/lib.sh by the hostile-clone scenarios.
# An attacker commits into $TMP/attacker; the victim clones it into $TMP/victim and runs
# tether there. Helpers that snapshot what lies outside the dataset let a scenario assert
# that nothing there changed.

# attacker_dataset: a git repository with one commit and a tether dataset, at $TMP/attacker.
attacker_dataset() {
  mkdir -p "$TMP/attacker"
  (cd "$TMP/attacker" && git init -q -b main && git commit -q --allow-empty -m root && "$TETHER" init >/dev/null)
}

# attacker_memory_dataset: attacker_dataset with one object, `db` on the memory store's
# system sys1, committed; leaves the shell in $TMP/attacker. Needs use_memory_store first.
attacker_memory_dataset() {
  attacker_dataset
  cd "$TMP/attacker"
  ok tether add db sys1 --kind memory
  ok tether commit -m "db"
}

# victim_clone: clones the attacker's repository into $TMP/victim and cds there.
victim_clone() {
  git clone -q "$TMP/attacker" "$TMP/victim"
  cd "$TMP/victim"
}

# fingerprint DIR: one line per file under DIR (path, mode, size, content hash), for
# before/after comparison of what must not change.
fingerprint() {
  (cd "$1" && find . -printf '%p %m %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum)
}

# reseal IN OUT PYTHON: OUT is IN edited by PYTHON (over `p`), with the digest recomputed as
# tether computes it, so that only the edit itself can give it away.
reseal() {
  python3 - "$1" "$2" "$3" <<'PY'
import hashlib, json, sys
p = json.load(open(sys.argv[1]))
exec(sys.argv[3])
p.pop("digest", None)
p["digest"] = hashlib.sha256(json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
}
