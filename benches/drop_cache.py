"""Drops every file under the given paths from the page cache, as if it had never been read.

usage: python3 benches/drop_cache.py PATH...

Each file is synced first, so every page is clean and can go; no root needed
(`posix_fadvise(POSIX_FADV_DONTNEED)`, where `/proc/sys/vm/drop_caches` would drop every cache
of the machine). The benches use it to start from the same cache state every run, and to time
a lookup on logs that are on disk, not in memory.
"""

import os
import sys

for root in sys.argv[1:]:
    paths = [root] if os.path.isfile(root) else (
        os.path.join(d, f) for d, _, files in os.walk(root) for f in files
    )
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
