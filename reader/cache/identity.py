"""What identifies a file's bytes: the identity an index cache entry or a shard saves of each
file it indexed, and the check that a file still holds those bytes (see SECURITY.md).

A local file is identified by its device, inode, size, mtime and ctime and by hashes of its
first and last bytes and of all of them (or of `_BLOCKS` blocks spread over a file over
`_WHOLE`); a remote object by its endpoint, size and ETag/generation (`remote_key`).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from reader.cache import remote_key
from reader.cache.location import blake2b
from reader.io.regular import open_fd
from reader.io.remote import is_remote

_EDGE = 4096  # bytes hashed at the start and at the end of each file, and per sampled block
_WHOLE = 16 << 20  # files up to this size are hashed whole when checked
_BLOCKS = 512  # blocks hashed in a bigger file (2 MiB)


def _hash(fd: int, start: int, stop: int) -> str:
    h = blake2b(digest_size=16)
    h.update(os.pread(fd, max(0, stop - start), start))
    return h.hexdigest()


def _sample(fd: int, size: int) -> str:
    """A hash of the first `size` bytes: all of them up to `_WHOLE`, else `_BLOCKS` blocks of
    `_EDGE` bytes spread evenly over them (a few MiB read however big the file)."""
    h = blake2b(digest_size=16)
    if size <= _WHOLE:
        for start in range(0, size, 1 << 20):
            h.update(os.pread(fd, min(1 << 20, size - start), start))
    else:
        step = (size - _EDGE) / (_BLOCKS - 1)
        for i in range(_BLOCKS):
            h.update(os.pread(fd, _EDGE, int(i * step)))
    return h.hexdigest()


# The hashes of files this process checked whole (`still_holds` of a file that has not
# grown), by what `fstat` said of them then: a file whose device, inode, size, mtime and
# ctime are all the same still is those bytes (any write changes the ctime), so saving an
# index right after its sources were checked (an open from shards) does not hash them again.
_checked: dict[tuple[str, int, int, int, int, int], tuple[str, str, str]] = {}


def _stat_key(path: str, st: os.stat_result) -> tuple[str, int, int, int, int, int]:
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def file_identity(path: str) -> dict[str, Any] | None:
    """What identifies a file's bytes so far: None if it is not a readable regular file."""
    if is_remote(path):
        return remote_key.identity(path)
    fd = open_fd(path)  # (a device or FIFO is not opened at all)
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        size = st.st_size
        head, tail, sample = _checked.get(_stat_key(path, st)) or (
            _hash(fd, 0, min(size, _EDGE)), _hash(fd, max(0, size - _EDGE), size),
            _sample(fd, size))
        return {"dev": st.st_dev, "ino": st.st_ino, "size": size, "mtime": st.st_mtime_ns,
                "ctime": st.st_ctime_ns, "head": head, "tail": tail, "sample": sample}
    except OSError:
        return None
    finally:
        os.close(fd)


def still_holds(saved: Any, path: str) -> bool:
    """True if the file is the one saved, unchanged or only appended to since.

    Unchanged: same device, inode, size, mtime and ctime (a rewrite in place changes the
    ctime even when the mtime is set back) and the same hashes. Grown: the bytes it had must
    hash the same — all of them up to `_WHOLE`, sampled blocks beyond (see SECURITY.md).
    Remote objects are replaced whole: the same size and ETag/generation, at the same
    endpoint (the entry's key), is the same object; any other is read again (`remote_key`).
    """
    if is_remote(path):
        return remote_key.still_holds(saved, path)
    if not isinstance(saved, dict):
        return False
    fd = open_fd(path)
    if fd is None:
        return False
    try:
        st = os.fstat(fd)
        size = saved["size"]
        if (not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (saved["dev"], saved["ino"])
                or type(size) is not int or not 0 <= size <= st.st_size
                or (st.st_size == size and (st.st_mtime_ns, st.st_ctime_ns)
                    != (saved["mtime"], saved["ctime"]))):
            return False
        held = (_hash(fd, 0, min(size, _EDGE)) == saved["head"]
                and _hash(fd, max(0, size - _EDGE), size) == saved["tail"]
                and _sample(fd, size) == saved["sample"])
        if held and st.st_size == size and len(_checked) < 1 << 16:
            _checked[_stat_key(path, st)] = (saved["head"], saved["tail"], saved["sample"])
        return held
    except (OSError, KeyError, TypeError, ValueError, OverflowError):
        return False
    finally:
        os.close(fd)
