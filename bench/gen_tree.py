#!/usr/bin/env python3
"""bench/gen_tree.py DIR COUNT [PER_DIR]: writes COUNT small files under DIR.

Files go into subdirectories of PER_DIR files each (d0000/f000000.txt, ...), 20-200 bytes of
deterministic text, so every run builds the same tree. Plain os.open/write, no fsync: the
point is a tree on disk quickly, not durability.
"""
import os
import sys


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root, count = sys.argv[1], int(sys.argv[2])
    per_dir = int(sys.argv[3]) if len(sys.argv) == 4 else 1000
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    for i in range(count):
        d = os.path.join(root, "d%04d" % (i // per_dir))
        if i % per_dir == 0:
            os.makedirs(d, exist_ok=True)
        body = ("file %d %s\n" % (i, "x" * (i * 7919 % 180))).encode()
        fd = os.open(os.path.join(d, "f%06d.txt" % i), flags, 0o644)
        os.write(fd, body)
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
