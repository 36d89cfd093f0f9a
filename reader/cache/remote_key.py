"""How the index cache recognises an object of a remote logdir (`reader.io.remote`).

A local file is known by device, inode, size and mtime; an object has none of the first two,
and its mtime is when it was last uploaded. What a bucket does give is a version of the bytes
(S3's ETag, GCS's generation) and a size: the same version and size is the same object, read
with no range request at all. An object replaced by a longer one (a run still being
uploaded) has a new version; its entry is still good if the hashes of the first and of the
last cached bytes match, so the reopened index only reads what was added.
"""

from __future__ import annotations

from typing import Any

from reader.cache.store import blake2b
from reader.io.regular import check_regular, open_regular, pread
from reader.io.remote import RemoteStat

_EDGE = 4096  # bytes hashed at the start and at the end of what was cached


def _hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def _edges(url: str, size: int) -> tuple[str, str]:
    with open_regular(url) as f:
        return (_hash(pread(f, min(size, _EDGE), 0)),
                _hash(pread(f, min(size, _EDGE), max(0, size - _EDGE))))


def identity(url: str) -> dict[str, Any] | None:
    """Size, version and edge hashes of an object; None if it cannot be listed or read."""
    try:
        st = check_regular(url)
        if not isinstance(st, RemoteStat):
            return None
        head, tail = _edges(url, st.st_size)
    except OSError:
        return None
    return {"url": url, "size": st.st_size, "version": st.version, "head": head, "tail": tail}


def still_holds(saved: Any, url: str) -> bool:
    """True if the object is the one saved, or a longer version of it."""
    if not isinstance(saved, dict) or saved.get("url") != url:
        return False
    try:
        st = check_regular(url)
        size = saved["size"]
        if not isinstance(st, RemoteStat) or not isinstance(size, int) or st.st_size < size:
            return False
        if st.st_size == size:  # same size, another version: rewritten, not grown
            return bool(st.version == saved["version"])
        return _edges(url, size) == (saved["head"], saved["tail"])
    except (OSError, KeyError, TypeError, ValueError):
        return False
