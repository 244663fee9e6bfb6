#!/usr/bin/env python3
"""Drops the page cache of every regular file under DIR (posix_fadvise DONTNEED; run `sync`
first, dirty pages stay). The benchmarks use it on outputs they keep until the end, so that
memory does not fill up with them from one round to the next.
Usage: evict.py DIR..."""
import os, sys

for top in sys.argv[1:]:
    for root, _, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
