"""Temporaries a killed writer left behind, told from a live writer's and removed.

Why: `reader.io.safewrite` writes every file through a temporary of a random name
(`.NAME.tmp-<16 hex>`) and removes it in every case a process can act on — an error, a
full disk, SIGTERM/SIGINT/SIGHUP (`remove_live_temporaries`). SIGKILL (the OOM killer, a
batch system's hard limit, `kill -9`) leaves no chance: the temporary stays in the user's
folder for good, a shard's as big as the shard. A later write of the same `NAME` removes
them — but only dead ones: two `index` runs (or an `export` beside another) may write into
one folder at once, and a live writer's temporary is never touched.

How a dead one is told: every temporary is created holding an exclusive `flock` on its
open file, kept until its name is gone (renamed into place or removed). The kernel drops
the lock when the last descriptor of the file closes — when the process dies, however it
dies. A temporary of our name pattern whose lock can be taken is one no process holds:
removed. Only regular files of ours (this user's), never followed through a link.
"""

from __future__ import annotations

import os
import re
import stat

try:
    import fcntl
except ImportError:  # (not POSIX: nothing is held, nothing is removed)
    fcntl = None  # type: ignore[assignment]

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def hold(fd: int) -> None:
    """Mark the temporary open on `fd` as live while any descriptor of it stays open."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # (a file system without locks: it can never be told dead either)
        pass


def remove_dead(dir_fd: int, name: str) -> int:
    """Remove the temporaries of `name` in folder `dir_fd` that no live process holds;
    how many were removed. Never raises: a folder that cannot be listed is left as it is."""
    if fcntl is None:
        return 0
    pattern = re.compile(re.escape(f".{name[:80]}.tmp-") + r"[0-9a-f]{16}")
    try:
        names = [n for n in os.listdir(dir_fd) if pattern.fullmatch(n)]
    except OSError:
        return 0
    return sum(_remove_if_dead(dir_fd, n) for n in names)


def _remove_if_dead(dir_fd: int, tmp: str) -> bool:
    try:
        fd = os.open(tmp, _OPEN, dir_fd=dir_fd)
    except OSError:  # (gone meanwhile, a link, not ours to read)
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a live writer holds it (or this file system has no locks:
            return False  # then nothing is told dead)
        try:
            now = os.stat(tmp, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            return False
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return False  # (the name was taken by another file meanwhile)
        os.unlink(tmp, dir_fd=dir_fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
