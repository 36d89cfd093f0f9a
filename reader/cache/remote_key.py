"""How the index cache recognises an object of a remote logdir (`reader.io.remote`).

A local file is known by device, inode, size and mtime; an object has none of the first two,
and its mtime is when it was last uploaded. What a bucket does give is a version of the bytes
(S3's ETag, GCS's generation) and a size: the same version and size, at the same endpoint (the
cache key includes where the bytes come from: `reader.io.remote.source`), is the same object,
read with no range request at all — and every read of it is checked against that version
(`If-Match`, and the ETag of each response: `reader.io.remote_stream`).

An object replaced by a longer one (a run still being uploaded) has a new version, and its
entry is dropped: the bytes it covered could only be verified by downloading all of them
again (the first and last few KiB say nothing of a changed middle), which costs what reading
the logdir again costs. So nothing the cache holds for a remote object is ever taken on
trust beyond (endpoint, name, size, version); see SECURITY.md.

An object whose server gives no version at all (a web server's folder without ETags: only a
size and a time, or not even that) has nothing to be known by: rewritten with the same size
(in the same second), it would pass for the bytes the entry covered. Such an object never
holds (`still_holds`), and an index holding one is not saved (`unversioned`).
"""

from __future__ import annotations

from typing import Any

from reader.io.regular import check_regular
from reader.io.remote import RemoteStat


def identity(url: str) -> dict[str, Any] | None:
    """Size and version of an object; None if it cannot be listed."""
    try:
        st = check_regular(url)
    except OSError:
        return None
    if not isinstance(st, RemoteStat):
        return None
    return {"url": url, "size": st.st_size, "version": st.version, "versioned": st.versioned}


def unversioned(saved: Any) -> bool:
    """Is `saved` (an `identity`) an object with no version of its bytes?"""
    return isinstance(saved, dict) and "url" in saved and saved.get("versioned") is not True


def still_holds(saved: Any, url: str) -> bool:
    """True if the object is the one saved: same name, size and version (a longer version —
    a run still being uploaded — is not: its entry is read again); never for an object its
    server gives no version of (only its size and time would say it is the same)."""
    if not isinstance(saved, dict) or saved.get("url") != url:
        return False
    try:
        st = check_regular(url)
        size = saved["size"]
        return (isinstance(st, RemoteStat) and st.versioned and saved.get("versioned") is True
                and isinstance(size, int) and st.st_size == size
                and st.version == saved["version"])
    except (OSError, KeyError, TypeError, ValueError):
        return False
