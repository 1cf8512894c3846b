#!/usr/bin/env python3
"""bench/gen_history.py: a long tether history of `git` objects, written with git fast-import.

  gen_history.py objects ROOT REPOS OBJECTS
      Creates REPOS bare repositories ROOT/repo<r>.git; object j (key objNN) lives in
      repo<j % REPOS> on its own branch objNN, which gets one initial commit. Prints one
      line "KEY PATH BRANCH" per object, for `tether add KEY PATH --kind git --branch BRANCH`.

  gen_history.py history DATASET COMMITS CHANGES ORPHANS
      DATASET is a tether dataset (cwd-independent path) whose objects were registered from
      the lines above and committed once with a real `tether commit`. Appends COMMITS - 1
      dataset commits to its current branch; commit i changes CHANGES objects (round robin):
      each gets a new commit on its branch, the object's manifest records that commit's sha
      and a pin `tether.<pin_id>`, and the pin exists as a lightweight tag in the object's
      repository, as `tether commit` would have left it. ORPHANS more commits are tagged with
      pins no manifest names (what abandoned commits leave behind, for gc to find). Every pin
      is claimed in the clone's pinned index (tether-pinned.jsonl), as `tether commit`
      claims the pins it creates.

The manifests are the text tether wrote for the real commit with the sha, pin and
captured_at replaced; the pin id is computed as docs/FORMAT.md says (framed BLAKE2b over the
canonical JSON of kind, identity and the state without volatile keys), and
checked against the pins tether computed for the real commit before anything is written.
Nothing is fsync'ed or repacked here; bench/run runs `git gc` afterwards.
"""
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib

# The git backend's volatile state keys and identity (plugins/git: describe(), identity()).
VOLATILE = {"git": ("change_id", "dirty")}


def cb(x) -> bytes:
    """Canonical JSON (docs/FORMAT.md#canonical-json)."""
    return json.dumps(x, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def framed_blake2b(*parts: bytes, size: int) -> str:
    """Framed BLAKE2b (docs/FORMAT.md#framed-blake2b)."""
    h = hashlib.blake2b(digest_size=size)
    for p in parts:
        h.update(len(p).to_bytes(8, "big"))
        h.update(p)
    return h.hexdigest()


def identity(kind: str, locator: dict) -> dict:
    if kind != "git":
        raise SystemExit(f"gen_history: only git objects are supported, not {kind}")
    raw = locator.get("path") or locator.get("uri")
    return {"path": os.path.realpath(raw).rstrip("/") or "/"}


def pin_id(dataset_id: str, kind: str, locator: dict, state: dict) -> str:
    content = {k: v for k, v in state.items() if k not in VOLATILE[kind]}
    digest = framed_blake2b(cb(kind), cb(identity(kind, locator)), cb(content), size=16)[:16]
    return dataset_id[:8] + "." + digest


def git(repo: str, *args: str, data: bytes | None = None) -> str:
    r = subprocess.run(["git", "-C", repo, *args], input=data, stdout=subprocess.PIPE, check=True)
    return r.stdout.decode()


def fast_import(repo: str, stream: bytes) -> dict[int, str]:
    """Runs git fast-import on STREAM; returns mark -> sha."""
    marks = os.path.join(repo, "bench-marks")
    git(repo, "fast-import", "--quiet", "--done", f"--export-marks={marks}", data=stream)
    out = {}
    with open(marks) as f:
        for line in f:
            m, sha = line.split()
            out[int(m[1:])] = sha
    os.unlink(marks)
    return out


def data(b: bytes) -> bytes:
    return b"data %d\n" % len(b) + b + b"\n"


def commit_cmd(ref: str, mark: int, when: int, msg: str, parent: str | None, files: list[tuple[str, bytes]]) -> bytes:
    who = b"tether bench <bench@example.invalid> %d +0000\n" % when
    out = b"commit %s\nmark :%d\nauthor %scommitter %s" % (ref.encode(), mark, who, who)
    out += data(msg.encode())
    if parent:
        out += b"from %s\n" % parent.encode()
    for path, body in files:
        out += b"M 100644 inline %s\n" % path.encode() + data(body)
    return out


def key_of(j: int) -> str:
    return "obj%02d" % j


# --- objects ------------------------------------------------------------------------------
def objects(root: str, repos: int, count: int) -> None:
    when = 1767225600  # 2026-01-01, fixed: the same repositories every run
    for r in range(repos):
        repo = os.path.join(root, "repo%d.git" % r)
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", repo], check=True)
        git(repo, "config", "gc.auto", "0")
        stream = b""
        mark = 0
        for j in range(r, count, repos):
            mark += 1
            k = key_of(j)
            stream += commit_cmd("refs/heads/" + k, mark, when, k + " 0", None, [(k + ".txt", b"%s 0\n" % k.encode())])
        fast_import(repo, stream + b"done\n")
    for j in range(count):
        print(key_of(j), os.path.join(root, "repo%d.git" % (j % repos)), key_of(j))


# --- history ------------------------------------------------------------------------------
class Obj:
    def __init__(self, rel: str, text: str, dataset_id: str):
        self.rel, self.text = rel, text
        doc = tomllib.loads(text)
        self.key, self.kind, self.locator = doc["key"], doc["kind"], doc["locator"]
        self.state, self.pin = doc.get("state"), doc.get("pin")
        if not self.state or not self.pin:
            raise SystemExit(f"gen_history: {rel} has no state or pin: was it committed?")
        got = pin_id(dataset_id, self.kind, self.locator, self.state)
        if got != self.pin["id"] or self.pin["ref"] != "tether." + got:
            raise SystemExit(f"gen_history: pin id computed for {self.key} is {got}, tether wrote {self.pin}")
        self.captured_at = doc["captured_at"]
        self.sha = self.state["sha"]
        self.branch = self.locator.get("ref") or self.locator.get("branch")
        self.repo = identity(self.kind, self.locator)["path"]

    def manifest(self, sha: str, pin: str, captured_at: str) -> str:
        """The committed manifest with the state's sha, the pin and captured_at replaced."""
        out = self.text
        for old, new in ((self.sha, sha), (self.pin["id"], pin), (self.captured_at, captured_at)):
            if out.count(old) != (2 if old == self.pin["id"] else 1):
                raise SystemExit(f"gen_history: cannot template {self.rel}: {old!r} occurs {out.count(old)} times")
            out = out.replace(old, new)
        return out


def iso(t: float, timespec: str = "microseconds") -> str:
    """captured_at's form (microseconds); the pinned index's claims have seconds."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec=timespec)


def history(dataset: str, commits: int, changes: int, orphans: int) -> None:
    with open(os.path.join(dataset, "tether.toml"), "rb") as f:
        dataset_id = tomllib.load(f)["dataset"]["id"]
    top = git(dataset, "rev-parse", "--show-toplevel").strip()
    objdir = os.path.join(dataset, ".tether", "objects")
    objs = []
    for name in sorted(os.listdir(objdir)):
        with open(os.path.join(objdir, name)) as f:
            objs.append(Obj(os.path.relpath(os.path.join(objdir, name), top), f.read(), dataset_id))
    if git(dataset, "status", "--porcelain", "--", ".tether/objects"):
        raise SystemExit("gen_history: the manifests differ from the last commit")
    n = len(objs)
    changes = min(changes, n)
    head = git(dataset, "rev-parse", "HEAD").strip()
    branch = git(dataset, "symbolic-ref", "HEAD").strip()
    t0 = int(git(dataset, "log", "-1", "--format=%ct").strip()) + 1

    # Object repositories: every changed object's new commit, then the orphans.
    by_repo: dict[str, list] = {}
    steps = []  # per dataset commit i: [(obj, repo, mark)]
    tip = {o.key: o.sha for o in objs}
    for i in range(2, commits + 1):
        step = []
        for c in range(changes):
            o = objs[((i - 2) * changes + c) % n]
            s = by_repo.setdefault(o.repo, [b"", 0])
            s[1] += 1
            body = b"%s step %d\n" % (o.key.encode(), i)
            s[0] += commit_cmd("refs/heads/" + o.branch, s[1], t0 + i, "%s step %d" % (o.key, i), tip.pop(o.key, None),
                               [(o.key + ".txt", body)])
            step.append((o, s[1]))
        steps.append(step)
    orphan_marks = []
    for k in range(orphans):
        o = objs[k % n]
        s = by_repo.setdefault(o.repo, [b"", 0])
        s[1] += 1
        parent = o.sha if k < n else None  # the first one per object forks off its initial commit
        s[0] += commit_cmd("refs/bench/orphans/" + o.key, s[1], t0, "%s abandoned %d" % (o.key, k), parent,
                           [(o.key + ".txt", b"%s abandoned %d\n" % (o.key.encode(), k))])
        orphan_marks.append((o, s[1]))
    shas = {repo: fast_import(repo, s[0] + b"done\n") for repo, s in by_repo.items()}

    # Tags for every new pin, claimed in the pinned index.
    tags: dict[str, list[str]] = {}
    claims = []
    pinned_path = os.path.join(git(dataset, "rev-parse", "--git-common-dir").strip(), "tether-pinned.jsonl")
    if not os.path.isabs(pinned_path):
        pinned_path = os.path.join(dataset, pinned_path)
    with open(pinned_path) as f:
        claim_template = json.loads(f.readline())

    def pin_for(o: Obj, sha: str, when: int) -> str:
        state = dict(o.state, sha=sha)
        p = pin_id(dataset_id, o.kind, o.locator, state)
        tags.setdefault(o.repo, []).append("create refs/tags/tether.%s %s\n" % (p, sha))
        claims.append(json.dumps(dict(claim_template, kind=o.kind, pin_id=p, at=iso(when, "seconds")), separators=(",", ":")))
        return p

    # The dataset's commits.
    stream = []
    for idx, step in enumerate(steps):
        i = idx + 2
        files = []
        for o, mark in step:
            sha = shas[o.repo][mark]
            files.append((o.rel, o.manifest(sha, pin_for(o, sha, t0 + i), iso(t0 + i + (i * 7919 % 1000000) / 1e6)).encode()))
        stream.append(commit_cmd(branch, idx + 1, t0 + i, "commit %d" % i, head if idx == 0 else None, files))
    for o, mark in orphan_marks:
        pin_for(o, shas[o.repo][mark], t0)
    for repo, lines in tags.items():
        git(repo, "update-ref", "--stdin", data="".join(lines).encode())
    with open(pinned_path, "a") as f:
        f.write("".join(c + "\n" for c in claims))
    if stream:
        fast_import(dataset, b"".join(stream) + b"done\n")
    print("%d dataset commits, %d pins (%d orphaned) in %d repositories" %
          (len(steps), len(claims), len(orphan_marks), len(tags)))


def main() -> int:
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == "objects":
        objects(os.path.abspath(a[1]), int(a[2]), int(a[3]))
    elif len(a) == 5 and a[0] == "history":
        history(os.path.abspath(a[1]), int(a[2]), int(a[3]), int(a[4]))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
