#!/usr/bin/env bash
# `tether upgrade` records again what older versions recorded in an older shape, where the
# data is unchanged. A version-2 dataset: a file's state by size and mtime and a directory's
# digest over `<size>:<mtime_ns>` tokens are rehashed to content hashes (with a listing), a
# directory that changed since keeps its state with a note, and a manifest kept at its key's
# legacy path (`imaging.v2` as `imaging.toml`) moves to its own file. A state of types no
# version wrote is kept with a note, not a crash. A version-4 dataset: a
# directory whose digest had no rows for its symlinks gets them, and the touched-store
# index's record gets the identity this version gives its locator. Afterwards `status`
# shows the unchanged objects as unchanged.
. "$(dirname "$0")/lib.sh"

# digest DIR MODE: the directory digest older versions recorded (MODE mtime: before version
# 3; nolinks: 0.1.0b3, without rows for symlinks to directories or dangling ones).
digest() { python3 - "$1" "$2" <<'PY'
import hashlib, os, sys
root, mode = sys.argv[1], sys.argv[2]
rows = []
for d, dirs, files in os.walk(root):
    for name in files + dirs:
        p = os.path.join(d, name)
        if os.path.isdir(p) or not os.path.exists(p):
            continue
        st = os.stat(p)
        rel = os.path.relpath(p, root)
        if mode == "mtime":
            tok = f"{st.st_size}:{st.st_mtime_ns}"
        else:
            tok = hashlib.sha256(open(p, "rb").read()).hexdigest()
        rows.append((rel, tok))
h = hashlib.blake2b(digest_size=16)
for rel, tok in sorted(rows):
    h.update(rel.encode() + b"\0" + tok.encode() + b"\0")
print(h.hexdigest())
PY
}
manifest() {  # manifest KEY URI STATE-TOML
  printf 'key = "%s"\nkind = "file"\n\n[locator]\nuri = "%s"\n\n[policy]\nfile = "immutable"\npin = "native"\n\n[state]\n%s\n' "$1" "$2" "$3"
}

# ---- version 2 ----
mkdir -p "$TMP/v2/data/tree/sub" "$TMP/v2/data/stale" && cd "$TMP/v2"
echo one > data/one.txt
echo a > data/tree/a.txt && echo b > data/tree/sub/b.txt
echo s > data/stale/s.txt
echo img > data/img.txt
git init -q -b main
mkdir -p .tether/objects
printf '[tether]\nversion = 2\n\n[dataset]\nid = "0a1b2c3d"\n' > tether.toml
size=$(stat -c %s data/one.txt); mtime=$(python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)' data/one.txt)
manifest one data/one.txt "type = \"file\"
size = $size
mtime_ns = $mtime" > .tether/objects/one.toml
manifest tree data/tree "type = \"dir\"
count = 2
size = 4
digest = \"$(digest data/tree mtime)\"" > .tether/objects/tree.toml
manifest stale data/stale "type = \"dir\"
count = 1
size = 2
digest = \"$(digest data/stale mtime)\"" > .tether/objects/stale.toml
echo changed > data/stale/s.txt
manifest odd data/one.txt 'type = "file"
size = "big"
mtime_ns = [1]' > .tether/objects/odd.toml   # written by hand: types no version wrote
size=$(stat -c %s data/img.txt); mtime=$(python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)' data/img.txt)
manifest imaging.v2 data/img.txt "type = \"file\"
size = $size
mtime_ns = $mtime" > .tether/objects/imaging.toml
printf '/workspace.toml\n' > .tether/.gitignore
git add -A && git commit -q -m "a version-2 dataset"

fails 1 tether status
err_has "tether.toml is version 2"
ok tether upgrade --dry-run  # the first opens claim workspace.toml and list the lock in .gitignore
ok tether upgrade --dry-run
remember_state
ok tether upgrade --dry-run
out_matches "^ +rename-manifest  imaging\.v2 +\[file\] \.tether/objects/imaging\.toml  -> \.tether/objects/imaging\.v2\.toml$"
out_matches "^ +refingerprint  one +\[file\] one  data unchanged; recorded again content-hashed "
out_matches "^ +refingerprint  tree +\[file\] tree  data unchanged; recorded again content-hashed "
out_has "stale: its state was recorded in an older shape and the directory changed since; it shows as changed until it is committed again"
out_lacks "refingerprint  stale"
out_matches "^ +odd: its state was recorded in an older shape and cannot be read now \(.*\); it shows as changed"
unchanged "upgrade --dry-run"

ok tether upgrade
out_has "upgraded v2 -> v5"
out_has "  rehashed one"
out_has "  rehashed tree"
out_has "  rehashed imaging.v2"
out_lacks "rehashed stale"
[ ! -e .tether/objects/imaging.toml ] || fail "the legacy manifest file is still there"
grep -q '^key = "imaging.v2"$' .tether/objects/imaging.v2.toml || fail "imaging.v2's manifest did not move"
grep -q '^sha256 = "' .tether/objects/one.toml || fail "one is not content-hashed"
grep -q 'mtime_ns' .tether/objects/one.toml && fail "one keeps mtime_ns"
grep -q "^digest = \"$(digest data/tree sha)\"$" .tether/objects/tree.toml || fail "tree's digest is not over content hashes"
[ -n "$(git ls-files .tether/listings)" ] || fail "no listing was committed for tree"
eq "$(git status --porcelain --untracked-files=no)" "" "the upgrade left uncommitted changes"
run tether status --json  # exit 1: stale, an immutable object, changed
eq "$(json '{o["key"]: o["status"] for o in j["objects"]}')" "{'imaging.v2': 'clean', 'odd': 'error', 'one': 'clean', 'stale': 'error', 'tree': 'clean'}" \
   "the rehashed objects are unchanged"
# The commit before the upgrade keeps the older layout; readers of history take it as it is.
ok tether diff HEAD~1 HEAD
out_matches "^ +changed  imaging\.v2$"
run tether verify --all-history
out_matches "^ +drifted  [0-9a-f]{12}:imaging\.v2  "
ok tether undo
eq "$(git log -1 --format=%s)" "a version-2 dataset"
[ -f .tether/objects/imaging.toml ] || fail "undo did not put the legacy manifest back"

# ---- version 4 ----
mkdir -p "$TMP/v4/data/linked/sub" && cd "$TMP/v4"
echo a > data/linked/a.txt && echo b > data/linked/sub/b.txt
ln -s sub data/linked/latest && ln -s nowhere data/linked/dangling
git init -q -b main
git commit -q --allow-empty -m "initial"
mkdir -p .tether/objects
printf '[tether]\nversion = 4\n\n[dataset]\nid = "0a1b2c3d"\n\n[vcs]\ntrunk = "main"\n' > tether.toml
manifest linked "$TMP/v4/data/linked" "type = \"dir\"
count = 2
size = 4
digest = \"$(digest data/linked nolinks)\"" > .tether/objects/linked.toml
printf '/workspace.toml\n' > .tether/.gitignore
git add -A && git commit -q -m "a version-4 dataset"
touched="$(git rev-parse --git-common-dir)/tether-touched.jsonl"
printf '{"dataset_id": "0a1b2c3d", "kind": "file", "identity": {"uri": "%s", "b3": true}, "locator": {"uri": "%s"}, "key": "linked", "at": "2026-01-01T00:00:00+00:00"}\n' \
  "$TMP/v4/data/linked" "$TMP/v4/data/linked" > "$touched"
printf '{"dataset_id": "ffffffff", "kind": "file", "identity": {"uri": "/other"}, "locator": {"uri": "/other"}, "key": "x", "at": "2026-01-01T00:00:00+00:00"}\n' >> "$touched"

ok tether upgrade --dry-run
out_matches "^ +rewrite-state  linked +\[file\] linked  data unchanged; recorded again with its symlinks "
out_matches "^ +rewrite-index +tether-touched\.jsonl  1 record\(s\) get the identity this version gives their locator$"
ok tether upgrade --json
eq "$(json 'j["rewritten_manifests"]')" "['linked']"
eq "$(json 'j["rewritten_indexes"]')" "{'tether-touched.jsonl': 1}"
grep -q '^count = 4$' .tether/objects/linked.toml || fail "linked's symlinks are not counted"
eq "$(python3 -c 'import json,sys; print([json.loads(l)["identity"] for l in open(sys.argv[1])])' "$touched")" \
   "[{'uri': '$TMP/v4/data/linked'}, {'uri': '/other'}]" "the record gets this version's identity; another dataset's is left alone"
ok tether status --json
eq "$(json '[o["status"] for o in j["objects"]]')" "['clean']" "linked shows as unchanged"
